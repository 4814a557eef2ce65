"""The pipeline's settings, part of config/settings/base.py: the broker and Celery, which
events exist and who consumes them, the outbox relay and the mail provider. The retention
job's periods and steps are in retention.py (its schedule, with the others', here)."""

import os
import socket

from celery.schedules import crontab

from config.settings.environment import BASE_DIR, env, switch
from infra.rabbitmq import broker_url_normalized
from messaging.broker.topology import celery_task_queues
from messaging.task_names import RELAY_OUTBOX_SWEEP, RETENTION
from operations.task_names import RECONCILE

# --- Broker and Celery ---------------------------------------------------------------
# The one place the broker is configured; each non-default setting says why, and the
# section of docs/celery-and-rabbitmq.md ("C&R") that shows what the default would do.
# One node, or a cluster's nodes separated by `;`: every client (Celery's workers and beat,
# Flower, the relay's publisher, the dead-letter reader, the commands) fails over along it.
CELERY_BROKER_URL = broker_url_normalized(
    env("CELERY_BROKER_URL", default="amqp://guest:guest@127.0.0.1:5672/orders")
)
RABBITMQ_MANAGEMENT_URL = env("RABBITMQ_MANAGEMENT_URL", default="http://guest:guest@127.0.0.1:15672")
# A nack or a lost confirm must raise, never drop a retry silently (C&R "What Celery drops by
# default"). The wait has no timeout here (py-amqp ignores one in these options); retries
# pass their own.
CELERY_BROKER_TRANSPORT_OPTIONS = {"confirm_publish": True}
TASK_RETRY_CONFIRM_TIMEOUT_SECONDS = 10
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True  # workers wait for the broker (C&R "Connections")
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_TIMEOUT = 5  # a dead broker must not hang a publish (kombu #1024)
# A channel error (consumer timeout, 406) must reconnect, not kill the worker (C&R "Connections").
CELERY_BROKER_CHANNEL_ERROR_RETRY = True
CELERY_ACCEPT_CONTENT = ["json"]  # never unpickle what arrives on the wire
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
# C&R "Acknowledgements" for the next five: ack only after the result is committed; a failed
# task is rejected to the dead-letter queue, not acked away; a killed child requeues and the
# quorum delivery limit stops a poison loop; a hard time limit acks by default, so a queue
# without a delivery limit cannot hot-loop (the event task overrides it: its queue has one).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_ACKS_ON_FAILURE = False
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_TASK_ACKS_ON_TIMEOUT = True
# The delivery of an email takes the messages waiting behind it in its queue along
# (messaging/worker/companions.py): at most this many per batch, claimed in one transaction,
# sent at the same time, recorded in one transaction. A batch never waits for company: a lone
# message goes at once.
DELIVERY_BATCH_SIZE = env.int("DELIVERY_BATCH_SIZE", default=16)
# How long a delivery's claim or outcome waits for a row another session holds before it gives up
# and is retried (notifications/delivery/claim_read.py, statements.py); well under the task's
# soft time limit, which would otherwise cut the whole batch.
DELIVERY_LOCK_WAIT_SECONDS = env.float("DELIVERY_LOCK_WAIT_SECONDS", default=2.0)
# One message per pool process: what a worker does not hold waits in the broker, where the
# delivery that runs next takes it along into its batch.
CELERY_WORKER_PREFETCH_MULTIPLIER = env.int("CELERY_WORKER_PREFETCH_MULTIPLIER", default=1)
# After a connection loss late-ack tasks cannot be acked; stop them rather than run twice.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = 10.0  # finish a provider call before a restart
# A provider call takes at most connect + read timeout (35 s); the soft limit interrupts
# anything slower while the handler can still record the outcome.
CELERY_TASK_SOFT_TIME_LIMIT = env.int("TASK_SOFT_TIME_LIMIT_SECONDS", default=60)
CELERY_TASK_TIME_LIMIT = env.int("TASK_TIME_LIMIT_SECONDS", default=75)
# Only failures are stored: the notification tables are the ledger, not the result backend;
# django-celery-results, made to survive a database restart (infra/result_backend.py).
CELERY_RESULT_BACKEND = "infra.result_backend.ResilientDatabaseBackend"
CELERY_RESULT_EXTENDED = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_STORE_ERRORS_EVEN_IF_IGNORED = True
CELERY_RESULT_EXPIRES = 7 * 24 * 3600
# Task events (received, started, succeeded: three publishes per email) only while someone
# watches: Flower turns them on in every worker it sees (its enable_events, every 5 s), and
# they stay on until the worker restarts (docs/performance.md has what they cost).
CELERY_WORKER_SEND_TASK_EVENTS = switch("WORKER_TASK_EVENTS", default=False)
CELERY_TASK_SEND_SENT_EVENT = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Nothing is dropped: undecodable, unknown, invalid, failed and expired messages go to the
# dead-letter queue with their reason (messaging/worker/).
CELERY_WORKER_CONSUMER = "messaging.worker.consumer:DeadLetteringConsumer"
# Celery closes the Django connection around every task unless this is set (270 vs 814
# tasks/s, C&R "Database connections in workers"); reusing it is safe with health checks on.
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)
OUTBOX_SWEEP_INTERVAL_SECONDS = env.float("OUTBOX_SWEEP_INTERVAL_SECONDS", default=5.0)
CELERY_BEAT_SCHEDULE = {
    "relay-outbox-sweep": {
        "task": RELAY_OUTBOX_SWEEP,
        "schedule": OUTBOX_SWEEP_INTERVAL_SECONDS,
        # A sweep that waited longer than one interval is stale: the next one replaces it.
        "options": {"expires": OUTBOX_SWEEP_INTERVAL_SECONDS},
    },
    "retention-hourly": {"task": RETENTION, "schedule": crontab(minute=41)},
    # A quiet hour; the report waits in the admin.
    "reconcile-daily": {"task": RECONCILE, "schedule": crontab(hour=3, minute=17)},
}
# Two beats may run: the one holding a PostgreSQL advisory lock sends, the other takes over
# within seconds when it dies (messaging/beat/leader.py).
CELERY_BEAT_SCHEDULER = "messaging.beat.leader:LeaderScheduler"
CELERY_BEAT_SCHEDULE_FILENAME = env(
    "CELERY_BEAT_SCHEDULE_FILENAME", default=str(BASE_DIR / "var" / "celerybeat-schedule")
)

# --- Events: which exist, who consumes them ---------------------------------------------
# Each feature declares the event types it consumes in a catalogue (an EVENT_TYPES list);
# the backbone reads them from here (messaging/registry.py), and so do the work queues.
MESSAGING_EVENT_CATALOGUES = env.list(
    "MESSAGING_EVENT_CATALOGUES", default=["orders.events", "notifications.events"]
)
CELERY_TASK_QUEUES = celery_task_queues(MESSAGING_EVENT_CATALOGUES)
# Everything that is not an event (the periodic jobs) goes to the maintenance queue.
CELERY_TASK_DEFAULT_QUEUE = CELERY_TASK_DEFAULT_EXCHANGE = "orders.maintenance"
CELERY_TASK_DEFAULT_EXCHANGE_TYPE = "topic"
# A drill's crash point (infra/crash_points.py, docs/drills.md): unset, none is armed; production
# refuses to start with one (base.py).
FAULT_CRASH_POINT = env("FAULT_CRASH_POINT", default="")

# --- Health and metrics: what each app offers, found by dotted path ----------------------
READINESS_CHECKS = ["infra.health.database_problems", "messaging.broker.declare.topology_problems"]
# /metrics labels this host's process counts with it; /metrics/deployment serves the collectors.
METRICS_HOST = env("METRICS_HOST", default=socket.gethostname())
# Where this host's processes keep their counts (bin/web, bin/worker, bin/relay export it);
# unset, a process counts for itself alone. prometheus_client reads the environment variable
# itself, when it is imported, to count into files there: the variable stays exported, and our
# code reads this setting.
PROMETHEUS_MULTIPROC_DIR = env("PROMETHEUS_MULTIPROC_DIR", default="")
METRICS_COLLECTORS = [
    "messaging.metrics.OutboxCollector",
    "messaging.metrics.BrokerQueuesCollector",
    "notifications.metrics.NotificationCollector",
]

# --- Outbox relay -----------------------------------------------------------------------
# Bench: batches of 500 drained a backlog ~25 % faster than 200 (fewer claim commits).
OUTBOX_RELAY_BATCH_SIZE = env.int("OUTBOX_RELAY_BATCH_SIZE", default=500)
# A claimed row is reserved for its claimer this long (after a crash the sweep takes it
# over): longer than the worst publish (connect 5 s + confirms 10 s), so claims never overlap.
OUTBOX_CLAIM_LEASE_SECONDS = env.int("OUTBOX_CLAIM_LEASE_SECONDS", default=30)
OUTBOX_CONFIRM_TIMEOUT_SECONDS = env.float("OUTBOX_CONFIRM_TIMEOUT_SECONDS", default=10.0)

# --- Mail provider ------------------------------------------------------------------------
# Which provider sends (docs/providers.md): resend, brevo, ses, anymail (any other ESP Anymail
# supports, through its own ANYMAIL settings), smtp, or the dotted path of your own class.
MAIL_PROVIDER = env("MAIL_PROVIDER", default="resend")
# The provider API's base URL (resend, brevo); empty means the provider's public API. The
# development default is the local simulator, which speaks both wires.
MAIL_PROVIDER_URL = env("MAIL_PROVIDER_URL", default="http://127.0.0.1:8025")
MAIL_PROVIDER_API_KEY = env("MAIL_PROVIDER_API_KEY", default="dev-mail-key")
MAIL_FROM_ADDRESS = env("MAIL_FROM_ADDRESS", default="Orders <orders@example.com>")
# A second provider (any of the five, not the same as MAIL_PROVIDER) that takes an email while
# the first's circuit is open or it is paused, only if nothing of that email may have reached
# the first (docs/providers.md "Failover"); empty: none, emails wait for the first. Its own
# base URL and API key (resend, brevo); the other kinds have settings of their own anyway.
MAIL_PROVIDER_FALLBACK = env("MAIL_PROVIDER_FALLBACK", default="")
MAIL_PROVIDER_FALLBACK_URL = env("MAIL_PROVIDER_FALLBACK_URL", default="")
MAIL_PROVIDER_FALLBACK_API_KEY = env("MAIL_PROVIDER_FALLBACK_API_KEY", default="")
MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS = env.float("MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS", default=5.0)
MAIL_PROVIDER_READ_TIMEOUT_SECONDS = env.float("MAIL_PROVIDER_READ_TIMEOUT_SECONDS", default=30.0)
# Retries of a transient delivery failure: delay(n) = min(max, base * 2^(n-1)) + jitter, for
# as long as the event type's retry budget (messaging/registry.py; customer emails 24 h, at
# most 30 min apart). The two overrides below replace every type's figure when set; the
# retry count is only a safety cap far beyond what the budgets need.
DELIVERY_MAX_RETRIES = env.int("DELIVERY_MAX_RETRIES", default=500)
DELIVERY_RETRY_BASE_DELAY_SECONDS = env.int("DELIVERY_RETRY_BASE_DELAY_SECONDS", default=5)
DELIVERY_RETRY_MAX_DELAY_SECONDS = env.int("DELIVERY_RETRY_MAX_DELAY_SECONDS", default=0)  # 0: the type's
DELIVERY_RETRY_BUDGET_SECONDS = env.int("DELIVERY_RETRY_BUDGET_SECONDS", default=0)  # 0: the type's
# The provider's circuit breaker, shared by all workers (notifications/delivery/circuit.py):
# this many transient failures in a row stop every worker's calls for this many seconds,
# then one probe call decides.
MAIL_PROVIDER_CIRCUIT_FAILURES = env.int("MAIL_PROVIDER_CIRCUIT_FAILURES", default=5)
MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS = env.int("MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS", default=30)
# At most this many provider calls per second, across every worker on every host (0: no limit;
# Resend allows 2 per second by default, docs/failure-handling.md).
MAIL_PROVIDER_RATE_LIMIT = env.float("MAIL_PROVIDER_RATE_LIMIT", default=0.0)
# The SMTP server, when MAIL_PROVIDER is smtp
# (Django's own email settings; the read timeout above applies).
EMAIL_HOST = env("EMAIL_HOST", default="127.0.0.1")
EMAIL_PORT = env.int("EMAIL_PORT", default=2525)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = switch("EMAIL_USE_TLS", default=False)
# Bytes a message may have (as sent) at an SMTP server announcing no SIZE: Postfix's default.
EMAIL_MAX_MESSAGE_BYTES = env.int("EMAIL_MAX_MESSAGE_BYTES", default=10_240_000)
# Amazon SES v2, when MAIL_PROVIDER is ses: the region that sends (required), an endpoint of
# an SES-compatible server (empty: AWS's own), and the configuration set that publishes SES
# events (empty: none, and no events). Credentials come from boto3's own chain.
AWS_SES_REGION = env("AWS_SES_REGION", default="")
AWS_SES_ENDPOINT_URL = env("AWS_SES_ENDPOINT_URL", default="")
AWS_SES_CONFIGURATION_SET = env("AWS_SES_CONFIGURATION_SET", default="")
# Any ESP of django-anymail, when MAIL_PROVIDER is anymail: the dotted path of Anymail's
# backend, and Anymail's own settings. These are the ANYMAIL dict as JSON, or one variable per
# setting named as Anymail names it, ANYMAIL_<ESP>_<SETTING> (a string); it reads both the
# same way (anymail/utils.py get_anymail_setting), and the dict wins, as in Anymail.
ANYMAIL_BACKEND = env("ANYMAIL_BACKEND", default="")
ANYMAIL = {
    name.removeprefix("ANYMAIL_"): value
    for name, value in os.environ.items()
    if name.startswith("ANYMAIL_")
    and name not in ("ANYMAIL_BACKEND", "ANYMAIL_SETTINGS", "ANYMAIL_MAX_MESSAGE_BYTES")
} | env.json("ANYMAIL_SETTINGS", default={})
# The largest email (bytes, attachments in base64) sent through Anymail: the smallest limit its
# ESPs document, Postmark's ("Maximum email size is 10 MB", after base64; postmarkapp.com/developer).
ANYMAIL_MAX_MESSAGE_BYTES = env.int("ANYMAIL_MAX_MESSAGE_BYTES", default=10_000_000)
# Delivery webhooks (docs/providers.md): Resend's Svix signing secret (whsec_...). The other
# ESPs' tracking webhooks check basic auth "user:password" from ANYMAIL_WEBHOOK_SECRET (which
# lands in ANYMAIL["WEBHOOK_SECRET"] above).
RESEND_WEBHOOK_SECRET = env("RESEND_WEBHOOK_SECRET", default="")
# How long an email with an unknown outcome waits for the provider's event that settles it
# before it is a person's: longer than Resend's ~32 h of webhook retries.
PROVIDER_EVIDENCE_WAIT_HOURS = env.int("PROVIDER_EVIDENCE_WAIT_HOURS", default=36)
# How long a worker owns a notification while it calls the provider: longer than the task's
# hard time limit, so a live call never loses its lease to a second copy of the event.
NOTIFICATION_LEASE_SECONDS = env.int("NOTIFICATION_LEASE_SECONDS", default=90)
# An email that follows an earlier one (a shipment's, after the confirmation) looks again this
# often while the earlier one is on its way, and this often while it waits for a person
# (hours, perhaps days: no need to ask every few seconds).
EMAIL_FOLLOWING_WAIT_SECONDS = env.int("EMAIL_FOLLOWING_WAIT_SECONDS", default=5)
EMAIL_FOLLOWING_PERSON_WAIT_SECONDS = env.int("EMAIL_FOLLOWING_PERSON_WAIT_SECONDS", default=300)
