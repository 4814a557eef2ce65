"""The clocks of a worker whose death a test waits out: a lease is judged by its expiry alone,
never by a process table (notifications/delivery/state.py lease_is_live), so an email whose
worker died is taken over once the lease has run out. With the product's 90 s that is longer
than a test should wait; these keep the product's order (notifications/checks.py: connect +
read < soft < hard time limit < lease) at a few seconds."""


def short_lease(*, read_timeout: int = 2) -> dict[str, str]:
    soft = 1 + read_timeout + 1
    return {
        "MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS": "1",
        "MAIL_PROVIDER_READ_TIMEOUT_SECONDS": str(read_timeout),
        "TASK_SOFT_TIME_LIMIT_SECONDS": str(soft),
        "TASK_TIME_LIMIT_SECONDS": str(soft + 1),
        "NOTIFICATION_LEASE_SECONDS": str(soft + 2),
    }


SHORT_LEASE = short_lease()  # lease 6 s
