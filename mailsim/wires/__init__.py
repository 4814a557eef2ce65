"""The providers' send wires the simulator speaks: one module per provider, one shared pipeline
(mailsim/sending.py). ``mailsim/webhooks/`` holds what each provider posts back afterwards."""
