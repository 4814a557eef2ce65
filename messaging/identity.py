import os
import socket


def current_process_name() -> str:
    """Names the process that holds a lease or claim: host and pid, so a lease held by a
    process that has died on this host can be recognised as void."""
    return f"{socket.gethostname()}:{os.getpid()}"


def process_is_gone(process_name: str) -> bool:
    """True only when we can tell for sure: the name is of this host and the pid is dead."""
    host, _, pid = process_name.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
