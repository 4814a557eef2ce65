"""Settings for every environment; production differs only by environment variables.

Every variable read here is listed, with a comment, in `.env.example`.
"""

from pathlib import Path

import environ
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)  # optional local overrides

# --- Django core and production safety (docs/security.md) -------------------------------
# "development" (the default: make run, make test, the drill, the bench, docker compose) or
# "production", which refuses to start with the development key or with debug pages on.
DJANGO_ENV = env("DJANGO_ENV", default="development")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
DEVELOPMENT_SECRET_KEY = "dev-only-insecure-key-change-me"
SECRET_KEY = env("DJANGO_SECRET_KEY", default=DEVELOPMENT_SECRET_KEY)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
if DJANGO_ENV not in ("development", "production"):
    raise ImproperlyConfigured(f"DJANGO_ENV must be development or production, not {DJANGO_ENV!r}.")
if DJANGO_ENV == "production" and DEBUG:
    raise ImproperlyConfigured(
        "DJANGO_DEBUG must be false in production: debug pages show settings and code."
    )
if DJANGO_ENV == "production" and (SECRET_KEY == DEVELOPMENT_SECRET_KEY or len(SECRET_KEY) < 50):
    # Anyone who knows the key can forge sessions (the admin) and password-reset links.
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is the development key or shorter than 50 characters; production needs "
        'its own: python -c "import secrets; print(secrets.token_urlsafe(50))"'
    )
# HTTPS ends at the TLS proxy in front of web and Flower. Behind it, Django trusts the proxy's
# X-Forwarded-Proto (DJANGO_SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https), redirects
# plain HTTP and keeps its cookies off it. All off in development, where nothing speaks TLS.
SECURE_PROXY_SSL_HEADER = tuple(env.list("DJANGO_SECURE_PROXY_SSL_HEADER", default=[])) or None
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=False)
# Health probes and the Prometheus scrape call these over plain HTTP from inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_SECURE = env.bool("DJANGO_SESSION_COOKIE_SECURE", default=False)
CSRF_COOKIE_SECURE = env.bool("DJANGO_CSRF_COOKIE_SECURE", default=False)
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "django_celery_results",
    "apiauth",
    "orders",
    "notifications",
    "infra",
    "observability",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.api_body_limit.ApiBodySizeLimitMiddleware",  # before anything reads a body
    "whitenoise.middleware.WhiteNoiseMiddleware",  # the admin's static files under gunicorn
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/orders"),
}
# Persistent connections for web processes; Celery workers use CELERY_DB_REUSE_MAX below.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# WhiteNoise serves the admin's files straight from the apps, so no process depends on a
# collectstatic step having run; the Docker image sets a root and collects them at build.
STATIC_ROOT = env("DJANGO_STATIC_ROOT", default=None)
WHITENOISE_USE_FINDERS = True

# --- API ------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["apiauth.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.api_parsers.StrictJSONParser"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "config.api_errors.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["apiauth.throttling.ApiTokenRateThrottle"],
}
# Requests per API token and window, across all web processes: "600/min", "10/s", "100/10s".
API_THROTTLE_RATE = env("API_THROTTLE_RATE", default="600/min")
# The largest request body the API reads; an order is a few hundred bytes.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=64 * 1024)
SPECTACULAR_SETTINGS = {
    "TITLE": "Order notifications API",
    "DESCRIPTION": "Orders in, customer emails out: never lost, never sent twice.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
}

# --- Broker and Celery ---------------------------------------------------------------
# The one place the broker is configured; each non-default setting says why.
# Reference: ../shared/reference/celery-rabbitmq.md §A (item numbers below).
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="amqp://guest:guest@127.0.0.1:5672/orders")
RABBITMQ_MANAGEMENT_URL = env("RABBITMQ_MANAGEMENT_URL", default="http://guest:guest@127.0.0.1:15672")
# A nack or a lost confirm must raise, never drop a retry silently (item 6). The wait has no
# timeout here (py-amqp ignores one in these options); retries pass their own.
CELERY_BROKER_TRANSPORT_OPTIONS = {"confirm_publish": True}
TASK_RETRY_CONFIRM_TIMEOUT_SECONDS = 10
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True  # workers wait for the broker (item 13)
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CONNECTION_TIMEOUT = 5  # a dead broker must not hang a publish (kombu #1024)
# A channel error (consumer timeout, 406) must reconnect, not kill the worker (item 11).
CELERY_BROKER_CHANNEL_ERROR_RETRY = True
CELERY_ACCEPT_CONTENT = ["json"]  # never unpickle what arrives on the wire
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_TASK_ACKS_LATE = True  # ack only after the result is committed (item 7)
# A failed task is rejected to the dead-letter queue, not acked away (item 8).
CELERY_TASK_ACKS_ON_FAILURE = False
# A killed child requeues; the quorum delivery limit stops a poison loop (item 9).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# A hard time limit acks by default, so a queue without a delivery limit cannot hot-loop
# (item 10); the event handler overrides it, because its quorum queue has one.
CELERY_TASK_ACKS_ON_TIMEOUT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = env.int("CELERY_WORKER_PREFETCH_MULTIPLIER", default=1)  # item 7
# After a connection loss late-ack tasks cannot be acked; stop them rather than run twice (item 12).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT = 10.0  # finish a provider call before a restart (item 15)
# A provider call takes at most connect + read timeout (35 s); the soft limit interrupts
# anything slower while the handler can still record the outcome.
CELERY_TASK_SOFT_TIME_LIMIT = env.int("TASK_SOFT_TIME_LIMIT_SECONDS", default=60)
CELERY_TASK_TIME_LIMIT = env.int("TASK_TIME_LIMIT_SECONDS", default=75)
# Only failures are stored: the notification tables are the ledger, not the result backend (§H).
# django-celery-results, made to survive a database restart (infra/result_backend.py).
CELERY_RESULT_BACKEND = "infra.result_backend.ResilientDatabaseBackend"
CELERY_RESULT_EXTENDED = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_STORE_ERRORS_EVEN_IF_IGNORED = True
CELERY_RESULT_EXPIRES = 7 * 24 * 3600
CELERY_WORKER_SEND_TASK_EVENTS = True  # Flower needs task events (item 19)
CELERY_TASK_SEND_SENT_EVENT = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Nothing is dropped: undecodable, unknown, invalid, failed and expired messages go to the
# dead-letter queue with their reason (notifications/worker/).
CELERY_WORKER_CONSUMER = "notifications.worker.consumer:DeadLetteringConsumer"
# Celery closes the Django connection around every task unless this is set: 270 vs 814
# tasks/s measured (perf-anchors §5). Reusing it is safe because health checks are on.
CELERY_DB_REUSE_MAX = env.int("CELERY_DB_REUSE_MAX", default=1000)
CELERY_BEAT_SCHEDULE = {
    "relay-outbox-sweep": {
        "task": "notifications.relay_outbox_sweep",
        "schedule": env.float("OUTBOX_SWEEP_INTERVAL_SECONDS", default=5.0),
        # A sweep that waited longer than one interval is stale: the next one replaces it.
        "options": {"expires": env.float("OUTBOX_SWEEP_INTERVAL_SECONDS", default=5.0)},
    },
    "retention-hourly": {
        "task": "notifications.retention",
        "schedule": crontab(minute=41),
    },
    "reconcile-daily": {
        "task": "notifications.reconcile",
        "schedule": crontab(hour=3, minute=17),  # a quiet hour; the report waits in the admin
    },
}
CELERY_BEAT_SCHEDULE_FILENAME = env(
    "CELERY_BEAT_SCHEDULE_FILENAME", default=str(BASE_DIR / "var" / "celerybeat-schedule")
)
# task_queues and task_routes come from the one topology module.
from notifications.broker.topology import CELERY_TASK_QUEUES as CELERY_TASK_QUEUES  # noqa: E402
from notifications.broker.topology import CELERY_TASK_ROUTES as CELERY_TASK_ROUTES  # noqa: E402

CELERY_TASK_DEFAULT_QUEUE = "orders.maintenance"
CELERY_TASK_DEFAULT_EXCHANGE = "orders.maintenance"
CELERY_TASK_DEFAULT_EXCHANGE_TYPE = "topic"

# --- Outbox relay -----------------------------------------------------------------------
# Bench: batches of 500 drained a backlog ~25 % faster than 200 (fewer claim commits).
OUTBOX_RELAY_BATCH_SIZE = env.int("OUTBOX_RELAY_BATCH_SIZE", default=500)
# How long a claimed row is reserved for the process that claimed it; after a crash the
# sweep takes it over once the lease has run out.
# Longer than the worst publish (connect 5 s + confirms 10 s), so claims do not overlap.
OUTBOX_CLAIM_LEASE_SECONDS = env.int("OUTBOX_CLAIM_LEASE_SECONDS", default=30)
OUTBOX_CONFIRM_TIMEOUT_SECONDS = env.float("OUTBOX_CONFIRM_TIMEOUT_SECONDS", default=10.0)

# How long published outbox events and inbox rows are kept (the retention job, hourly). Keep
# the inbox at least as long as the outbox, and longer than any redelivery can take.
OUTBOX_RETENTION_DAYS = env.int("OUTBOX_RETENTION_DAYS", default=7)
INBOX_RETENTION_DAYS = env.int("INBOX_RETENTION_DAYS", default=30)
RETENTION_BATCH_SIZE = env.int("RETENTION_BATCH_SIZE", default=5000)

# --- Mail provider ------------------------------------------------------------------------
MAIL_PROVIDER_CLASS = env("MAIL_PROVIDER_CLASS", default="notifications.providers.http.HttpMailProvider")
MAIL_PROVIDER_URL = env("MAIL_PROVIDER_URL", default="http://127.0.0.1:8025")
MAIL_PROVIDER_API_KEY = env("MAIL_PROVIDER_API_KEY", default="dev-mail-key")
MAIL_FROM_ADDRESS = env("MAIL_FROM_ADDRESS", default="Orders <orders@example.com>")
MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS = env.float("MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS", default=5.0)
MAIL_PROVIDER_READ_TIMEOUT_SECONDS = env.float("MAIL_PROVIDER_READ_TIMEOUT_SECONDS", default=30.0)
# Retries of a transient delivery failure: delay(n) = min(max, base * 2^(n-1)) + jitter.
DELIVERY_MAX_RETRIES = env.int("DELIVERY_MAX_RETRIES", default=8)
DELIVERY_RETRY_BASE_DELAY_SECONDS = env.int("DELIVERY_RETRY_BASE_DELAY_SECONDS", default=5)
DELIVERY_RETRY_MAX_DELAY_SECONDS = env.int("DELIVERY_RETRY_MAX_DELAY_SECONDS", default=60)
# The SMTP server, when MAIL_PROVIDER_CLASS is notifications.providers.smtp.SmtpMailProvider
# (Django's own email settings; the read timeout above applies).
EMAIL_HOST = env("EMAIL_HOST", default="127.0.0.1")
EMAIL_PORT = env.int("EMAIL_PORT", default=2525)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)
# How long a worker owns a notification while it calls the provider: longer than the task's
# hard time limit, so a live call never loses its lease to a second copy of the event.
NOTIFICATION_LEASE_SECONDS = env.int("NOTIFICATION_LEASE_SECONDS", default=90)

# --- Logging --------------------------------------------------------------------------------
# JSON lines by default (one event's id on every line, observability/logs.py); "plain" reads
# better in a terminal.
LOG_LEVEL = env("LOG_LEVEL", default="INFO")
LOG_FORMAT = env("LOG_FORMAT", default="json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "context": {"()": "observability.logs.ContextFilter"},
        "mask_emails": {"()": "observability.logs.EmailMaskingFilter"},  # no personal data in logs
    },
    "formatters": {
        "json": {"()": "observability.logs.JsonLinesFormatter"},
        "plain": {"format": "%(asctime)s %(levelname)s %(processName)s %(name)s: %(message)s"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["context", "mask_emails"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        "amqp": {"level": "WARNING"},
        "kombu": {"level": "WARNING"},
    },
}
