"""PostgreSQL's own server log, for the tests that check what it keeps.

Found as an operator would find it: the file the logging collector writes
(`pg_current_logfile()`), else the file the server's standard error goes to (Debian's
`pg_ctlcluster` points it at /var/log/postgresql/postgresql-<version>-<cluster>.log), read
through the server itself (`pg_read_binary_file`, a superuser's function, as the tests connect).
Where neither can be reached (a server on another host, a log sent to the journal), the test
is skipped, saying why.

The server is shared by every test database, so a test looks only at what was written after
the point it noted, and only for values no other test uses."""

import os
import uuid
from dataclasses import dataclass

import pytest
from django.db import DatabaseError, connection, transaction

from tests.waiting import wait_until


@dataclass(frozen=True)
class ServerLog:
    path: str

    def end(self) -> int:
        """How many bytes the log holds now: what a later `written_since` starts from."""
        with connection.cursor() as cursor:
            cursor.execute("SELECT size FROM pg_stat_file(%s)", [self.path])
            return cursor.fetchone()[0]

    def written_since(self, offset: int) -> str:
        """What the server wrote after `offset`, up to a statement made to fail now: every line
        about a statement that failed before this call is in it.

        That statement is the proof that the server logs a failed statement's text here (its
        `log_min_error_statement` is at `error`, the default, or below) and that this is the
        file it writes: without it, an empty log would pass for a clean one."""
        marker = f"pglog-marker-{uuid.uuid4().hex}"
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f'SELECT 1 / 0 AS "{marker}"')
        except DatabaseError:
            pass

        def written_up_to_it() -> str:
            written = self._read(offset)
            return written if marker in written else ""

        # The logging collector writes what backends pipe to it in its own time.
        text = wait_until(
            written_up_to_it,
            timeout=10,
            message=f"the failed statement {marker} in {self.path}",
        )
        return text[: text.index(marker)]

    def _read(self, offset: int) -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_read_binary_file(%s, %s, %s)", [self.path, offset, 64 * 1024 * 1024])
            return bytes(cursor.fetchone()[0]).decode("utf-8", errors="replace")


def server_log() -> ServerLog:
    """The test database's server's log. Where it cannot be read the test fails, saying why: a
    skip would hide that the setup lost the log the privacy promise is checked against."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT pg_current_logfile(), current_setting('data_directory'), pg_backend_pid()")
            current, data_directory, backend_pid = cursor.fetchone()
    except DatabaseError as exc:
        pytest.fail(f"PostgreSQL's log: pg_current_logfile() needs a superuser ({exc})")
    if current:  # relative to the data directory, unless log_directory is absolute
        return ServerLog(os.path.join(data_directory, current))
    try:
        target = os.readlink(f"/proc/{backend_pid}/fd/2")
    except OSError as exc:
        pytest.fail(f"PostgreSQL's log: no logging collector, and its standard error is out of reach ({exc})")
    if not target.startswith("/") or target.startswith("/dev/"):
        pytest.fail(f"PostgreSQL's log: its standard error goes to {target}, not to a file")
    return ServerLog(target)
