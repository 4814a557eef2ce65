"""The clocks of a worker whose death a test waits out: a lease is judged by its expiry alone,
never by a process table (notifications/delivery/state.py lease_is_live), so an email whose
worker died is taken over once the lease has run out. With the product's 90 s that is longer
than a test should wait; these keep the product's order (notifications/checks.py: connect +
read < soft < hard time limit < lease) at a few seconds."""

SHORT_LEASE = {
    "MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS": "1",
    "MAIL_PROVIDER_READ_TIMEOUT_SECONDS": "2",
    "TASK_SOFT_TIME_LIMIT_SECONDS": "4",
    "TASK_TIME_LIMIT_SECONDS": "5",
    "NOTIFICATION_LEASE_SECONDS": "6",
}
