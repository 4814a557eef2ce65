"""mailsim: a local stand-in for the mail providers (the send wires of Resend, Brevo and Postmark,
and their signed delivery webhooks).

It exists so the notification pipeline can be exercised against a provider that behaves like a real
one where it matters for correctness: idempotency keys, retries, timeouts, dropped connections,
transient outages, and webhooks that arrive late, twice, out of order or not at all. State lives in
SQLite under the data directory so it survives a restart of the simulator (pending webhooks
included); fault rules and webhook settings changed at runtime live in memory only, so a restart
clears them.

The ``/_sim/`` control API has no authentication. It is meant for development and tests: never
expose mailsim publicly. See ``tools/mailsim/README.md`` for the CLI and the HTTP API.
"""
