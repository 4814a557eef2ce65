"""mailsim: a local stand-in for the mail provider (Resend's ``POST /emails``).

It exists so the notification pipeline can be exercised against a provider that behaves like a real
one where it matters for correctness: idempotency keys, retries, timeouts, dropped connections and
transient outages. State lives in SQLite under the data directory so it survives a restart of the
simulator; fault rules live in memory only, so a restart clears them.

The ``/_sim/`` control API has no authentication. It is meant for development and tests: never
expose mailsim publicly. See ``mailsim/README.md`` for the CLI and the HTTP API.
"""
