"""The providers' send wires the simulator speaks: one module per provider, one shared pipeline
(tools/mailsim/sending.py). ``tools/mailsim/webhooks/`` holds what each provider posts back afterwards."""
