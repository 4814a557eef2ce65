import os
import socket


def current_process_name() -> str:
    """Names the process that holds a lease or claim: host and pid, so a holder can tell its
    own lease from one taken over. Never used to judge whether a holder is alive: only the
    lease's expiry does (notifications/delivery/state.py lease_is_live)."""
    return f"{socket.gethostname()}:{os.getpid()}"
