"""Settings for every environment; production differs only by environment variables.

Django, the API and logging here; the pipeline (broker, Celery, events, relay, mail
provider) in config/settings/pipeline.py, the retention job's periods and steps in
config/settings/retention.py. Every variable read is listed, with a comment, in `.env.example`.
"""

import re
from datetime import timedelta

from config.settings.environment import env, switch
from config.settings.logging import logging_config
from config.settings.safety import (
    DEVELOPMENT_SECRET_KEY,
    LOCAL_HOSTS,
    development_hash_key,
    implied_environment,
    production_refusals,
)

# --- Django core and production safety (docs/security.md) -------------------------------
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=list(LOCAL_HOSTS))
# "development" (make run, make test, the drill, the bench, docker compose) or "production"
# (the Docker image's default), which refuses what config/settings/safety.py lists (a
# development key, debug pages, ...), and whose web serves nothing while `check --deploy`
# reports an error (config/wsgi.py). Unset, it is production as soon as the web answers to a
# host that is not this machine: a deploy that forgot it must not serve with the development key.
DJANGO_ENV = env("DJANGO_ENV", default=implied_environment(ALLOWED_HOSTS))
DEBUG = switch("DJANGO_DEBUG", default=False)
SECRET_KEY = env("DJANGO_SECRET_KEY", default=DEVELOPMENT_SECRET_KEY)
# The key of the keyed hashes that stand for an address once it is erased (a suppression, an
# erasure's record: infra/keyed_hash.py). Production must set its own.
PERSONAL_DATA_HASH_KEY = env("PERSONAL_DATA_HASH_KEY", default="") or development_hash_key(SECRET_KEY)
# The key before a rotation (docs/security.md, "Rotating credentials"): every lookup also
# matches hashes made under it, since a hash whose address was erased cannot be remade.
PERSONAL_DATA_HASH_KEY_PREVIOUS = env("PERSONAL_DATA_HASH_KEY_PREVIOUS", default="")
# A customer's erasure (privacy/erasure.py) on the tables of features above it, by dotted path:
# a function (*, order_ids, address, words, elsewhere, now, reach) -> rows changed by kind: the
# rows of the orders lose `words` (the address, names, streets), any other row it reaches (by
# `reach`, privacy/reach.py: a shop's request, its own rows alone) only `elsewhere`.
PERSONAL_DATA_ERASURE_STEPS = {"platform_deliveries": "intake.personal_data.deliveries_erase"}
# And its export (privacy/export.py): (*, order_ids, address, elsewhere) -> sections of the
# document: what the orders hold, and what else quotes `elsewhere` (the address).
PERSONAL_DATA_EXPORT_STEPS = {"platform_deliveries": "intake.personal_data.deliveries_export"}
# HTTPS ends at the TLS proxy in front of web and Flower. Behind it, Django trusts the proxy's
# X-Forwarded-Proto (DJANGO_SECURE_PROXY_SSL_HEADER=HTTP_X_FORWARDED_PROTO,https), redirects
# plain HTTP and keeps its cookies off it.
SECURE_PROXY_SSL_HEADER = tuple(env.list("DJANGO_SECURE_PROXY_SSL_HEADER", default=[])) or None
# Production is HTTPS only unless a variable turns a part off: the redirect, cookies that never
# travel over plain HTTP, and HSTS (a year, subdomains, preload), so that a deployment that
# forgot one of them is not quietly weaker. Development has no TLS, so all are off there.
HTTPS_ONLY = DJANGO_ENV == "production"
SECURE_SSL_REDIRECT = switch("DJANGO_SECURE_SSL_REDIRECT", default=HTTPS_ONLY)
# Health probes and the Prometheus scrape call these from inside the network, over plain HTTP
# and by the pod's or host's address: no redirect to HTTPS, and no Host check
# (infra/probe_paths.py), while every other path answers only to ALLOWED_HOSTS.
PROBE_PATHS = ["/healthz", "/readyz", "/metrics", "/metrics/deployment"]
SECURE_REDIRECT_EXEMPT = [f"^{re.escape(path.removeprefix('/'))}$" for path in PROBE_PATHS]
SESSION_COOKIE_SECURE = switch("DJANGO_SESSION_COOKIE_SECURE", default=HTTPS_ONLY)
CSRF_COOKIE_SECURE = switch("DJANGO_CSRF_COOKIE_SECURE", default=HTTPS_ONLY)
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=365 * 24 * 3600 if HTTPS_ONLY else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = switch("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=HTTPS_ONLY)
SECURE_HSTS_PRELOAD = switch("DJANGO_SECURE_HSTS_PRELOAD", default=HTTPS_ONLY)

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
    "messaging",
    "shops",  # the shops connected through their platforms, whose orders arrive by webhook
    "orders",
    "notifications",
    "operations",  # the operators' screens and commands, above the email feature
    "privacy",  # a customer's personal data: erasure and export, across the features
    "intake",  # the connected shops' platform webhooks, turned into orders and their events
    "anymail",  # ESP backends and tracking webhooks (notifications/providers, notifications/tracking)
    "infra",
    "observability",
    "axes",  # the admin login's failed attempts and lockouts (below)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "infra.probe_paths.ProbePathsMiddleware",  # before anything reads the Host (CommonMiddleware)
    "api.errors.DatabaseUnavailableMiddleware",  # no primary database right now: 503, not 500
    "api.body_limit.ApiBodySizeLimitMiddleware",  # before anything reads a body
    "whitenoise.middleware.WhiteNoiseMiddleware",  # the admin's static files under gunicorn
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # answers a locked-out login 429 (django-axes: last)
]

# --- The admin's login ----------------------------------------------------------------------
# Staff passwords that are worth guessing: Django's four validators, at least 12 characters.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes counts failed logins per user name and address (REMOTE_ADDR: behind the TLS proxy
# that is the proxy's, so the count is per user name there) and refuses the login, the right
# password included, for a while after too many: guessing a password takes years, and a
# guesser can lock out one user name from one place for minutes at most.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env.int("ADMIN_LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("ADMIN_LOGIN_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# No log of every successful login: the operator's actions have their own record (OperatorAction).
AXES_DISABLE_ACCESS_LOG = True
AXES_VERBOSE = False  # no banner in every process's log; lockouts are still logged as warnings

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

# The database: its address (one host, or every node of a cluster) and its connections.
from config.settings.database import *  # noqa: E402, F403

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Customer emails: languages and the shop's brand (notifications/content/) -----------------
# The languages an order may name in "locale"; each has a message catalogue in
# notifications/locale/. Adding one: a catalogue (docs/email-content.md) and an entry here.
LANGUAGES = [("en", "English"), ("ru", "Русский")]
# The site's language: an order without "locale" gets its emails in it.
LANGUAGE_CODE = env("SHOP_DEFAULT_LOCALE", default="en")
# The shop as its emails and invoices show it (SHOP_*, SHOP_VAT_NUMBER, INVOICE_*).
from config.settings.shop import *  # noqa: E402, F403

# The CPU one email's render may take (notifications/content/render_limits.py): a shipped one
# takes a few milliseconds; a template written in the admin that takes longer is refused.
EMAIL_RENDER_MAX_CPU_SECONDS = 1.0
# The most rows one admin action may take (review actions, mismatches, platform deliveries'
# "Run again"; infra/action_limits.py): a larger selection is refused, since each runs in the request.
REVIEW_ACTION_MAX_NOTIFICATIONS = env.int("REVIEW_ACTION_MAX_NOTIFICATIONS", default=100)

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
    "DEFAULT_PARSER_CLASSES": ["api.parsers.StrictJSONParser"],
    "UNAUTHENTICATED_USER": None,
    "EXCEPTION_HANDLER": "api.errors.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["apiauth.throttling.ApiTokenRateThrottle"],
}
# Requests per API token and window, across all web processes: "600/min", "10/s", "100/10s".
API_THROTTLE_RATE = env("API_THROTTLE_RATE", default="600/min")
# The largest request body the API reads; an order is a few hundred bytes.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=64 * 1024)
# The largest webhook body a connected shop's platform may send (intake/): an order of 250
# lines from Shopify is about half a megabyte.
PLATFORM_WEBHOOK_MAX_BODY_BYTES = env.int("PLATFORM_WEBHOOK_MAX_BODY_BYTES", default=2 * 1024 * 1024)
# How many times a connected shop's platform may change one order's lines (intake/platform_edits.py):
# each change is a "your order was changed" email, a credit note and a new invoice. Beyond it a
# change is left out, its delivery saying why. At least 1 (intake.E001).
PLATFORM_EDITS_PER_ORDER_MAX = env.int("PLATFORM_EDITS_PER_ORDER_MAX", default=20)
# Whether fetches from an address a shop's settings name (Saleor's keys, a WooCommerce store's
# REST API; infra/outbound.py) may reach loopback and private addresses: in development the
# stand-ins run on this machine; in production such an address is refused (and so is plain HTTP).
SHOP_FETCH_PRIVATE_ADDRESSES = switch("SHOP_FETCH_PRIVATE_ADDRESSES", default=not HTTPS_ONLY)
SPECTACULAR_SETTINGS = {
    "TITLE": "Order notifications API",
    "DESCRIPTION": "Orders in, customer emails out: never lost, never sent twice.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Two choice sets share the field name "status": a parcel's (with "shipped") and what a shop
    # may report of it (without). Named here, so the schema's names do not depend on hashes.
    "ENUM_NAME_OVERRIDES": {
        "ParcelStatusEnum": "orders.models.ParcelStatus",
        "ParcelNewsStatusEnum": "orders.parcel_progress.REPORTED_STATUSES",
    },
}

# --- Logging --------------------------------------------------------------------------------
LOG_LEVEL = env("LOG_LEVEL", default="INFO")
LOG_FORMAT = env("LOG_FORMAT", default="json")  # or "plain", for a terminal
LOGGING = logging_config(log_format=LOG_FORMAT, log_level=LOG_LEVEL)

# The broker, Celery, the events, the relay and the mail provider: the pipeline's own settings.
from config.settings.pipeline import *  # noqa: E402, F403
from config.settings.pipeline import FAULT_CRASH_POINT, MESSAGING_EVENT_CATALOGUES  # noqa: E402

# How long each kind of row is kept, and the retention job's steps.
from config.settings.retention import *  # noqa: E402, F403

# Last, once everything is read: what production refuses to start with.
production_refusals(
    django_env=DJANGO_ENV,
    debug=DEBUG,
    secret_key=SECRET_KEY,
    hash_key=PERSONAL_DATA_HASH_KEY,
    fault_crash_point=FAULT_CRASH_POINT,
    event_catalogues=MESSAGING_EVENT_CATALOGUES,
)
