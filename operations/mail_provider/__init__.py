"""The mail provider's circuit breaker for operators: pause every worker's calls for planned
maintenance and resume them (`pause.py`), from the admin's "Mail provider" page (`views.py`)
or `manage.py provider`. The breaker itself is the delivery path's
(notifications/delivery/circuit.py); where it stands, in words, is `provider_circuit_status`
(notifications/selectors.py)."""
