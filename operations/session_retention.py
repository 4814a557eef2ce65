"""A step of the hourly retention job (RETENTION_STEPS): the admin's expired sessions.

Django leaves an expired session in its table until `manage.py clearsessions` runs, and a
session keeps what the admin remembers for its user, such as a reviewer's last search on a list
(operations/review/remembered_filters.py), which may be a customer's address. Once expired it
logs nobody in, so it has no purpose left. This step is clearsessions' work (the session
engine's `clear_expired()`) on the job's clock and counted: the database engines' expired rows go
in batches, each its own short transaction, like the job's other deletes. Another engine clears
its own way (the file engine deletes its files, a cache lets entries lapse), uncounted.
"""

from datetime import datetime
from importlib import import_module

from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import transaction


def expired_sessions_delete(*, now: datetime, batch_size: int, max_batches: int) -> int:
    """How many expired sessions it deleted from the database (0 for an engine without one)."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    if not issubclass(store, DatabaseSessionStore):  # the db and cached_db engines are
        store.clear_expired()
        return 0
    sessions = store.get_model_class().objects
    deleted = 0
    for _ in range(max_batches):
        with transaction.atomic():
            batch = list(sessions.filter(expire_date__lt=now).values_list("pk", flat=True)[:batch_size])
            deleted += sessions.filter(pk__in=batch).delete()[0]
        if len(batch) < batch_size:
            break
    return deleted
