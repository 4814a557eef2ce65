"""Every default, count, limit and duration the documents state about the code is the code's.

Each row is a document, a phrase exactly as the document writes it with `{}` where a figure
goes, and the figures, read from the code when the test runs (tests/unit/code_figures.py):
changing the figure in the code or in the words fails here until the other follows. Line
breaks do not matter (the document's text is read with its lines joined). A figure no test can
read (how long a run takes on some machine) is not stated; the documents say what decides it.

Not rows: measurements with their date or their report (a drill's or the bench's latest run),
examples that show a format, and what third parties do (a platform's retries, RabbitMQ's own
defaults), which no code of ours holds.
"""

import re
from functools import cache
from typing import Any

import pytest

from notifications.documents.contrast import WHITE, contrast_ratio
from tests.unit.code_figures import (
    REPO,
    Figure,
    Names,
    a_day,
    a_twentieth,
    alert_threshold,
    an_hour_or_more,
    at_time_of_day,
    backticked,
    beat_job,
    bench_latest,
    bench_scaling,
    celery_backend_cleanup_schedule,
    celery_delayed_delivery_pauses,
    computed,
    constant,
    currency_decimals,
    database_fault_row,
    database_fence,
    database_url,
    days,
    default_argument,
    drill_clock,
    email_tries_in_a_budget,
    ensure_services_asks_for,
    event_type_default,
    event_type_field,
    event_type_names,
    field_max_length,
    hour_or_hours,
    hourly,
    hourly_at_minute,
    hours,
    hours_of,
    import_linter_contracts,
    key_window,
    makefile_default,
    makefile_recipe,
    makefile_target_variable,
    manifest,
    mebibytes,
    megabytes,
    minutes,
    money,
    number,
    outage_bound,
    outage_config,
    percent,
    pinned,
    placed_on,
    provider_fault,
    publish_backoff,
    pytest_durations,
    rate_bound,
    replicas,
    reported,
    restore_queued_at_stop,
    restore_reported,
    restore_series,
    restore_step,
    seconds_in_words,
    secret_hint_length,
    setting,
    share_in_words,
    short_order_number_length,
    source_literal,
    source_match,
    svix_tolerance_minutes,
    thousands,
    two_hosts,
    words,
    work_queues,
)
from tests.unit.code_figures import script_default as script


def rows(document: str, *entries: tuple) -> list[tuple[str, str, tuple[Figure, ...]]]:
    """(document, phrase, figures) for each (phrase, *figures) of one document."""
    return [(document, phrase, tuple(figures)) for phrase, *figures in entries]


# --- The rows, document by document ---------------------------------------------------------

WORK_QUEUES = Names(work_queues)


PROVIDERS = Names(lambda: list(constant("notifications.providers.catalogue.PROVIDERS").read()))


LANGUAGES = Names(lambda: [code for code, _ in setting("LANGUAGES").read()])


WEB_PORT = script("bin/web", "WEB_PORT")


FLOWER_PORT = script("bin/flower", "FLOWER_PORT")


MAILSIM_PORT = script("tools/bin/mailsim", "MAILSIM_PORT")


DELIVERY_LIMIT = constant("messaging.broker.topology.DELIVERY_LIMIT")


EMAIL_RETRY_BUDGET = constant("notifications.events.EMAIL_RETRY_BUDGET", hours)


EMAIL_RETRY_MAX_DELAY = constant("notifications.events.EMAIL_RETRY_MAX_DELAY", minutes)


SECRET_KEY_MIN_LENGTH = constant("config.settings.safety.SECRET_KEY_MIN_LENGTH")


RETENTION_HOURLY = beat_job("retention-hourly", hourly)


PLATFORMS = constant("shops.models.Shop.Platform.choices")


LINT = Figure(lambda: makefile_recipe("lint"), backticked)


README = rows(
    "README.md",
    (
        "the whole product: web :{}, worker, relay, beat, Flower :{}, mail simulator :{}",
        WEB_PORT,
        FLOWER_PORT,
        MAILSIM_PORT,
    ),
    ("curl -s http://127.0.0.1:{}/api/orders/<id>/", WEB_PORT),
    ("curl -s http://127.0.0.1:{}/_sim/messages", MAILSIM_PORT),
    ("**Flower** (`:{}`) shows the workers", FLOWER_PORT),
    (
        "PostgreSQL ({} or newer, local connections without a password) and RabbitMQ ({} or newer",
        ensure_services_asks_for("PostgreSQL"),
        ensure_services_asks_for("RabbitMQ"),
    ),
    ("one of each per pytest process ({} by default,", makefile_default("TEST_PROCESSES", words)),
    ("every run ends with its {} slowest tests", pytest_durations()),
    ("`make drill-outage` ({} minutes of provider outage", makefile_default("OUTAGE_MINUTES", words)),
    ("`make demo`: {} minutes of a shop's orders", makefile_default("DEMO_MINUTES", words)),
    ("beat every {} s ──► relay worker", setting("OUTBOX_SWEEP_INTERVAL_SECONDS")),
    ("queue orders.confirmations (quorum, delivery limit {})", DELIVERY_LIMIT),
    ("[one of the {} work queues:", computed(lambda: len(work_queues()), words)),
    (
        "retry via orders.retry after {} s·2^(n-1) + jitter, at most the type's longest pause "
        "(emails {} min), for its budget (emails {} h)",
        setting("DELIVERY_RETRY_BASE_DELAY_SECONDS"),
        EMAIL_RETRY_MAX_DELAY,
        EMAIL_RETRY_BUDGET,
    ),
    ("`locale` ({}; default the site's language)", LANGUAGES),
    (
        "has no more decimals than the currency has (JPY {}, EUR {}) and at most {} (KWD",
        computed(lambda: currency_decimals("JPY"), lambda places: "none" if places == 0 else str(places)),
        computed(lambda: currency_decimals("EUR")),
        constant("orders.currencies.STORED_DECIMALS"),
    ),
    (
        "a connected shop's platform ({}) announces an order's life",
        computed(lambda: ", ".join(label for _, label in PLATFORMS.read())),
    ),
    (
        "`--dry-run`, `--yes` above {} messages",
        constant("operations.management.commands.replay_dead_letters.CONFIRM_ABOVE"),
    ),
    ("each with its dead-letter queue: {}.", WORK_QUEUES),
    ("| `DATABASE_URL` | `{}` |", computed(database_url)),
    ("| `CELERY_BROKER_URL` | `{}` |", setting("CELERY_BROKER_URL")),
    ("| `RABBITMQ_MANAGEMENT_URL` | `{}` |", setting("RABBITMQ_MANAGEMENT_URL")),
    ("| dev key, `{}`, localhost |", setting("DEBUG", lambda debug: str(debug).lower())),
    ("refuses the development key, a key under {} characters", SECRET_KEY_MIN_LENGTH),
    ("| `API_THROTTLE_RATE` | `{}` |", setting("API_THROTTLE_RATE")),
    ("| `API_MAX_BODY_BYTES` | `{}` |", setting("API_MAX_BODY_BYTES")),
    ("| `PLATFORM_EDITS_PER_ORDER_MAX` | `{}` |", setting("PLATFORM_EDITS_PER_ORDER_MAX")),
    ("| `MAIL_PROVIDER` | `{}` | which provider sends: {} (", setting("MAIL_PROVIDER"), PROVIDERS),
    ("| simulator, `{}` |", setting("MAIL_PROVIDER_API_KEY")),
    ("| `MAIL_FROM_ADDRESS` | `{}` |", setting("MAIL_FROM_ADDRESS")),
    (
        "`..._READ_TIMEOUT_SECONDS` | {}, {} |",
        setting("MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS"),
        setting("MAIL_PROVIDER_READ_TIMEOUT_SECONDS"),
    ),
    (
        "`DELIVERY_RETRY_MAX_DELAY_SECONDS` | each type's (emails {} h, {} min) |",
        EMAIL_RETRY_BUDGET,
        EMAIL_RETRY_MAX_DELAY,
    ),
    (
        "| `DELIVERY_RETRY_BASE_DELAY_SECONDS`, `DELIVERY_MAX_RETRIES` | {}, {} |",
        setting("DELIVERY_RETRY_BASE_DELAY_SECONDS"),
        setting("DELIVERY_MAX_RETRIES"),
    ),
    (
        "| `MAIL_PROVIDER_CIRCUIT_FAILURES`, `MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS` | {}, {} |",
        setting("MAIL_PROVIDER_CIRCUIT_FAILURES"),
        setting("MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS"),
    ),
    ("| `MAIL_PROVIDER_RATE_LIMIT` | {} (no limit) |", setting("MAIL_PROVIDER_RATE_LIMIT")),
    (
        "| `TASK_SOFT_TIME_LIMIT_SECONDS`, `TASK_TIME_LIMIT_SECONDS` | {}, {} |",
        setting("CELERY_TASK_SOFT_TIME_LIMIT"),
        setting("CELERY_TASK_TIME_LIMIT"),
    ),
    ("| `NOTIFICATION_LEASE_SECONDS` | {} |", setting("NOTIFICATION_LEASE_SECONDS")),
    ("| `OUTBOX_SWEEP_INTERVAL_SECONDS` | {} |", setting("OUTBOX_SWEEP_INTERVAL_SECONDS")),
    ("| `OUTBOX_RELAY_BATCH_SIZE` | {} |", setting("OUTBOX_RELAY_BATCH_SIZE")),
    ("| `OUTBOX_CLAIM_LEASE_SECONDS` | {} |", setting("OUTBOX_CLAIM_LEASE_SECONDS")),
    ("| `OUTBOX_CONFIRM_TIMEOUT_SECONDS` | {} |", setting("OUTBOX_CONFIRM_TIMEOUT_SECONDS")),
    ("| `CELERY_DB_REUSE_MAX` | {} |", setting("CELERY_DB_REUSE_MAX")),
    ("| `CELERY_WORKER_PREFETCH_MULTIPLIER` | {} |", setting("CELERY_WORKER_PREFETCH_MULTIPLIER")),
    ("providers/ the mail provider interface and its {}:", computed(lambda: len(PROVIDERS.read()), words)),
    ("retention.py the {} job that keeps the tables bounded", RETENTION_HOURLY),
    (
        "on a machine with Python {}:",
        makefile_default("PYTHON", lambda python: python.removeprefix("python")),
    ),
    ("leases across hosts, {} beats,", replicas("beat", words)),
)


TEST_PROCESSES = makefile_default("TEST_PROCESSES", words)


MAX_MODULE_LINES = constant("tests.unit.test_code_shape.MAX_MODULE_LINES")


MAX_FUNCTION_LINES = constant("tests.unit.test_code_shape.MAX_FUNCTION_LINES")


CONTRIBUTING = rows(
    "CONTRIBUTING.md",
    ("a module is longer than **{} lines**", MAX_MODULE_LINES),
    ("a function is longer than **{} lines**", MAX_FUNCTION_LINES),
    ("(on {} processes, `TEST_PROCESSES=0` for one;", TEST_PROCESSES),
    ("`make lint` runs {}: style, format, layers and types", LINT),
)


TESTS_README = rows(
    "tests/README.md",
    ("the long checks of the tools, on {} pytest processes;", TEST_PROCESSES),
    ("(pytest-xdist, {} by default)", TEST_PROCESSES),
    (
        "a short restore drill; {} of provider outage through the whole stack",
        source_match("tests/system/test_drill_outage.py", r'"outage_seconds": (\d+)', seconds_in_words),
    ),
)


OUTBOX_CLAIM_LEASE = setting("OUTBOX_CLAIM_LEASE_SECONDS")


FAST_PATH_PAUSE = constant("messaging.relay.relay.FAST_PATH_PAUSE_SECONDS")


LEASE = setting("NOTIFICATION_LEASE_SECONDS")


SOFT_TIME_LIMIT = setting("CELERY_TASK_SOFT_TIME_LIMIT")


HARD_TIME_LIMIT = setting("CELERY_TASK_TIME_LIMIT")


BASE_DELAY = setting("DELIVERY_RETRY_BASE_DELAY_SECONDS")


MAX_RETRIES = setting("DELIVERY_MAX_RETRIES")


KEY_WINDOW_MARGIN = constant("notifications.delivery.state.IDEMPOTENCY_WINDOW_MARGIN", minutes)


LEADER_KEEPALIVE = "messaging.beat.leader.KEEPALIVE"


ARCHITECTURE = rows(
    "docs/architecture.md",
    ("modules under {} lines, functions under {}.", MAX_MODULE_LINES, MAX_FUNCTION_LINES),
    ("between the commit and the publish, the lease runs out ({} s)", OUTBOX_CLAIM_LEASE),
    ("backs the row off, and stops trying for {} s,", FAST_PATH_PAUSE),
    (
        "gets its back-off ({} s, then {} s) and the sweep publishes it.",
        publish_backoff(1),
        publish_backoff(2),
    ),
    ("and a back-off of {} s doubling to {} min.", publish_backoff(1), publish_backoff(99, minutes)),
    ("(the bench's target: {} or more,", constant("tools.bench.targets.RELAY_EVENTS_PER_S", thousands)),
    (
        "Celery beat sends {} jobs to `orders.maintenance`",
        computed(lambda: len(setting("CELERY_BEAT_SCHEDULE").read()), words),
    ),
    (
        "| `relay-outbox-sweep` | every `OUTBOX_SWEEP_INTERVAL_SECONDS` ({}) |",
        setting("OUTBOX_SWEEP_INTERVAL_SECONDS"),
    ),
    ("| `retention-hourly` | minute {} |", beat_job("retention-hourly", hourly_at_minute)),
    ("| `reconcile-daily` | {} |", beat_job("reconcile-daily", at_time_of_day)),
    ('waits: another beat leads" and asks again every {} s.', constant("messaging.beat.leader.POLL_SECONDS")),
    (
        "asks for TCP keepalives ({} s idle, {} probes {} s apart), so about {} s.",
        constant(f"{LEADER_KEEPALIVE}", lambda keepalive: str(keepalive["tcp_keepalives_idle"])),
        constant(f"{LEADER_KEEPALIVE}", lambda keepalive: str(keepalive["tcp_keepalives_count"])),
        constant(f"{LEADER_KEEPALIVE}", lambda keepalive: str(keepalive["tcp_keepalives_interval"])),
        constant("messaging.beat.leader.KEEPALIVE_SECONDS"),
    ),
    (
        "| {} | quorum queues, bound to {} | `x-delivery-limit: {}` stops a poison message;",
        WORK_QUEUES,
        Names(event_type_names),
        DELIVERY_LIMIT,
    ),
    (
        "| `celery_delayed_0..{}` | Celery's native delayed delivery |",
        constant("kombu.transport.native_delayed_delivery.MAX_LEVEL"),
    ),
    (
        "(customer emails {} hours; the `x-retry-since` header carries it from retry to retry; "
        "{} retries at most as a safety cap)",
        EMAIL_RETRY_BUDGET,
        MAX_RETRIES,
    ),
    ("(the provider's `capabilities.key_window`, minus {} min)", KEY_WINDOW_MARGIN),
    ("`sending`, lease ({} s, longer than the task's hard time limit of {} s,", LEASE, HARD_TIME_LIMIT),
    (
        "`min(the type's longest pause, {} s·2^(n-1))` + up to {} % jitter, never below {} s,",
        BASE_DELAY,
        constant("messaging.retry_policy.JITTER_SHARE", lambda share: number(share * 100)),
        constant("messaging.retry_policy.MIN_DELAY_SECONDS"),
    ),
    (
        "customer emails {} minutes and {} hours, every other type {} minutes and {};",
        EMAIL_RETRY_MAX_DELAY,
        EMAIL_RETRY_BUDGET,
        event_type_default("retry_max_delay", minutes),
        event_type_default("retry_budget", an_hour_or_more),
    ),
    (
        "same key with another body → 409 conflict; {} h window.",
        constant("tools.mailsim.simulator.DEFAULT_WINDOW_SECONDS", hours),
    ),
    (
        "(a reused key is refused with 400 `duplicate_parameter` for {} minutes,",
        constant("tools.mailsim.simulator.DEFAULT_BREVO_WINDOW_SECONDS", minutes),
    ),
    ("soft/hard time limits of {}/{} s,", SOFT_TIME_LIMIT, HARD_TIME_LIMIT),
    (
        "breaks both on purpose). {} more contracts:",
        computed(lambda: len(import_linter_contracts()) - 1, lambda n: words(n).capitalize()),
    ),
)


FLOWER_ENABLES_EVENTS_WITHIN = constant(
    "flower.events.Events.events_enable_interval", lambda milliseconds: number(milliseconds / 1000)
)


CELERY_AND_RABBITMQ = rows(
    "docs/celery-and-rabbitmq.md",
    (
        "Celery {}, kombu {} and py-amqp {} on RabbitMQ",
        pinned("celery"),
        pinned("kombu"),
        pinned("amqp"),
    ),
    ("The work queues ({}) and their dead-letter queues are quorum queues", WORK_QUEUES),
    ("- `x-delivery-limit: {}` stops a poison message", DELIVERY_LIMIT),
    (
        "*native delayed delivery*: {} quorum queues `celery_delayed_0..{}`, each with a TTL of 2^N seconds",
        constant("kombu.transport.native_delayed_delivery.MAX_NUMBER_OF_BITS_TO_USE"),
        constant("kombu.transport.native_delayed_delivery.MAX_LEVEL"),
    ),
    ("sleeping {} s between its tries of a node that is down", computed(celery_delayed_delivery_pauses)),
    ("- `broker_connection_timeout={}`: a dead broker", setting("CELERY_BROKER_CONNECTION_TIMEOUT")),
    ("our tasks end within their hard time limit ({} s)", HARD_TIME_LIMIT),
    (
        "(`WORKER_TASK_EVENTS={}`: three publishes per email",
        setting("CELERY_WORKER_SEND_TASK_EVENTS", lambda on: str(on).lower()),
    ),
    ("turns them on in every worker it sees within {} seconds", FLOWER_ENABLES_EVENTS_WITHIN),
)


WORKER_SCALING = "orders-worker"


PROBE_PATHS = setting("PROBE_PATHS")


def _layout_memory_mib() -> int:
    return constant(f"{DOCUMENT_TEMPLATE}.LAYOUT_MAX_MEMORY_BYTES").read() >> 20


def _worker_concurrency() -> int:
    [worker] = manifest("Deployment", "orders-worker")["spec"]["template"]["spec"]["containers"][:1]
    return int(next(env["value"] for env in worker["env"] if env["name"] == "WORKER_CONCURRENCY"))


DEPLOY = rows(
    "docs/deploy.md",
    ("| web | 2 or more (the manifests: {}) |", replicas("web")),
    ("| relay | {} | runs beat's outbox sweeps;", replicas("relay")),
    (
        "| worker | {} to N |",
        computed(lambda: manifest("ScaledObject", WORKER_SCALING)["spec"]["minReplicaCount"]),
    ),
    ("| beat | {}, on two machines |", replicas("beat")),
    ("limited to `LAYOUT_MAX_MEMORY_BYTES` ({} MiB) of", computed(lambda: _layout_memory_mib())),
    ("plan for up to {} MiB more per pool process", computed(lambda: _layout_memory_mib())),
    (
        "run `WORKER_CONCURRENCY` {}, so up to {} MiB more per",
        computed(_worker_concurrency),
        computed(lambda: _worker_concurrency() * _layout_memory_mib()),
    ),
    ("| Flower | {} | read-only view of the workers;", replicas("flower")),
    ("once a Flower has asked (within {} s of seeing them)", FLOWER_ENABLES_EVENTS_WITHIN),
    (
        "one worker process sent about **{} emails/s** end to end, two about {}/s together",
        bench_scaling(1, 1),
        bench_scaling(2, 1),
    ),
    (
        "the consumer alone drained {}/s.",
        computed(lambda: round(bench_latest()["drain_ours_per_s"]["median"])),
    ),
    (
        "(`mode: QueueLength`, on {}, at least {} pods)",
        Names(
            lambda: [
                trigger["metadata"]["queueName"]
                for trigger in manifest("ScaledObject", WORKER_SCALING)["spec"]["triggers"]
            ]
        ),
        computed(lambda: manifest("ScaledObject", WORKER_SCALING)["spec"]["minReplicaCount"]),
    ),
    (
        "(`TASK_TIME_LIMIT_SECONDS`, {} s): the manifests use {} s.",
        HARD_TIME_LIMIT,
        computed(
            lambda: manifest("Deployment", "orders-worker")["spec"]["template"]["spec"][
                "terminationGracePeriodSeconds"
            ]
        ),
    ),
    ("(`NOTIFICATION_LEASE_SECONDS`, {} s)", LEASE),
    (
        "bounded by its connect and read timeouts ({} s + {} s), the task by its hard time limit "
        "({} s, after which Celery kills it), and the lease by {} s,",
        setting("MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS"),
        setting("MAIL_PROVIDER_READ_TIMEOUT_SECONDS"),
        HARD_TIME_LIMIT,
        LEASE,
    ),
    ("with NTP's milliseconds against a {}-second lease", LEASE),
    ("the development secret key, a key under {} characters,", SECRET_KEY_MIN_LENGTH),
    (
        "and HSTS is sent for {} with `includeSubDomains`",
        setting(
            "SECURE_HSTS_SECONDS",
            lambda span: "a year" if span == 365 * 24 * 3600 else f"{span} seconds",
            production=True,
        ),
    ),
    (
        "The {} paths they use, {} (`PROBE_PATHS`)",
        computed(lambda: len(PROBE_PATHS.read()), words),
        Names(PROBE_PATHS.read),
    ),
    ("calls the {} paths by IP (200)", computed(lambda: len(PROBE_PATHS.read()), words)),
    ("The work queues declare {} explicitly", DELIVERY_LIMIT),
    (
        "Unless the URL sets `connect_timeout`, libpq gives each host {} s to answer",
        constant("config.settings.database.MULTI_HOST_CONNECT_TIMEOUT_SECONDS"),
    ),
    ("`Retry-After: {}` (a JSON error under `/api/`)", constant("api.errors.DATABASE_RETRY_AFTER_SECONDS")),
    (
        "to see this on one machine: {} PostgreSQL nodes managed by Patroni",
        default_argument("tools.drill.pg_cluster.PrivateDatabaseCluster", "size", words),
    ),
    (
        "`ttl` {} s, `loop_wait` {} s, `retry_timeout` {} s and `primary_start_timeout` {}:",
        constant("tools.drill.patroni_config.TTL_SECONDS"),
        constant("tools.drill.patroni_config.LOOP_WAIT_SECONDS"),
        constant("tools.drill.patroni_config.RETRY_TIMEOUT_SECONDS"),
        constant("tools.drill.patroni_config.PRIMARY_START_TIMEOUT_SECONDS"),
    ),
)


RESEND = "resend.Resend"


BREVO = "brevo.Brevo"


IN_FLIGHT_DELAY = constant("messaging.retry_policy.IN_FLIGHT_DELAY_SECONDS")


FAILURE_HANDLING = rows(
    "docs/failure-handling.md",
    ("A message redelivered {} times without an outcome", DELIVERY_LIMIT),
    (
        "retries with the same idempotency key after `min(the type's longest pause, {} s·2^(n-1))` + "
        "up to {} % jitter, for the event type's retry budget counted in time from the first failure "
        "(customer emails: {} hours, at most {} minutes apart;",
        BASE_DELAY,
        constant("messaging.retry_policy.JITTER_SHARE", lambda share: number(share * 100)),
        EMAIL_RETRY_BUDGET,
        EMAIL_RETRY_MAX_DELAY,
    ),
    (
        "with a provider that dedupes by key (Resend {} h, Brevo {} min): resent with the same key "
        "while the window is open, counted from the first attempt, minus {} min;",
        key_window(RESEND, hours),
        key_window(BREVO, minutes),
        KEY_WINDOW_MARGIN,
    ),
    ("| looks again after {} s; not counted as an attempt |", IN_FLIGHT_DELAY),
    ("A message redelivered {} times without an outcome", DELIVERY_LIMIT),
    *[
        (f"| `{name}`{about} | `{{}}` |", event_type_field(name, "queue"))
        for name, about in (
            ("order.created", ""),
            ("order.cancelled", ""),
            ("order.shipped", " (about a shipment: `shipment_id`)"),
            ("order.refunded", " (about a refund: `refund_id`)"),
            ("order.paid", ""),
            ("mail.provider_event", " (about a provider's delivery event: `provider_event_id`)"),
        )
    ],
    ("every `EMAIL_FOLLOWING_WAIT_SECONDS` ({});", setting("EMAIL_FOLLOWING_WAIT_SECONDS")),
    (
        "every `EMAIL_FOLLOWING_PERSON_WAIT_SECONDS` ({}), saying so.",
        setting("EMAIL_FOLLOWING_PERSON_WAIT_SECONDS"),
    ),
    (
        "the web process stops trying for {} s after a failure; the sweep retries with back-off "
        "({} s doubling to {} min)",
        FAST_PATH_PAUSE,
        publish_backoff(1),
        publish_backoff(99, minutes),
    ),
    ("| relay killed between confirm and mark | the claim runs out ({} s)", OUTBOX_CLAIM_LEASE),
    ("it waits (in flight, looks again in {} s, no attempt counted)", IN_FLIGHT_DELAY),
    ("| `NOTIFICATION_LEASE_SECONDS` | {} | {} |", LEASE, drill_clock("NOTIFICATION_LEASE_SECONDS")),
    (
        "| `TASK_TIME_LIMIT_SECONDS` (hard) | {} | {} |",
        HARD_TIME_LIMIT,
        drill_clock("TASK_TIME_LIMIT_SECONDS"),
    ),
    (
        "| `TASK_SOFT_TIME_LIMIT_SECONDS` | {} | {} |",
        SOFT_TIME_LIMIT,
        drill_clock("TASK_SOFT_TIME_LIMIT_SECONDS"),
    ),
    (
        "`…_READ_TIMEOUT_SECONDS` | {} + {} | {} + {} |",
        setting("MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS"),
        setting("MAIL_PROVIDER_READ_TIMEOUT_SECONDS"),
        drill_clock("MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS"),
        drill_clock("MAIL_PROVIDER_READ_TIMEOUT_SECONDS"),
    ),
    (
        "the drill's {} s took 22 s)",
        constant("tools.drill.two_hosts.TwoHostConfig.broker_heartbeat_seconds"),
    ),
    (
        "(the drill: {} s, as `?options=-c%20idle_in_transaction_session_timeout%3D{}` in `DATABASE_URL`)",
        constant("tools.drill.hosts.IDLE_IN_TRANSACTION_TIMEOUT_MS", lambda ms: number(ms / 1000)),
        constant("tools.drill.hosts.IDLE_IN_TRANSACTION_TIMEOUT_MS"),
    ),
    ("(customer emails) | {} hours | {} minutes |", EMAIL_RETRY_BUDGET, EMAIL_RETRY_MAX_DELAY),
    ("and the tries few (about {} in a day)", computed(email_tries_in_a_budget)),
    *[
        (
            f"| `{name}` ({what}) | {{}} | {{}} minutes |",
            event_type_field(name, "retry_budget", hour_or_hours),
            event_type_field(name, "retry_max_delay", minutes),
        )
        for name, what in (
            ("mail.provider_event", "a delivery webhook to apply"),
            ("order.paid", "the daily sales counter"),
        )
    ],
    ("`DELIVERY_MAX_RETRIES` ({}) is only a safety cap", MAX_RETRIES),
    (
        "after `MAIL_PROVIDER_CIRCUIT_FAILURES` ({}) failures in a row",
        setting("MAIL_PROVIDER_CIRCUIT_FAILURES"),
    ),
    ("`MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS` ({}) later:", setting("MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS")),
    (
        "`MAIL_PROVIDER_RATE_LIMIT` (calls per second; {}, the default, is no limit)",
        setting("MAIL_PROVIDER_RATE_LIMIT"),
    ),
    (
        "and holding {} call: no burst,",
        constant("notifications.delivery.rate_limit.CAPACITY", lambda capacity: words(int(capacity))),
    ),
)


DEAD_LETTER_SCREEN = "operations.dead_letters.screen"


REVIEW_ACTION_MAX = setting("REVIEW_ACTION_MAX_NOTIFICATIONS")


CIRCUIT_FAILURES = setting("MAIL_PROVIDER_CIRCUIT_FAILURES")


CIRCUIT_OPEN_SECONDS = setting("MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS")


RECONCILE_DAILY = beat_job("reconcile-daily", at_time_of_day)


RESEND_KEY_WINDOW = key_window(RESEND, hours)


STUCK_AFTER = default_argument("operations.reconciliation.run.reconcile_run", "stuck_after", minutes)


OBSERVABILITY = rows(
    "docs/observability.md",
    (
        "(`bin/web`, `bin/worker` and `bin/relay` set it, default `{}`;",
        computed(
            lambda: " / ".join(
                sorted(
                    {
                        script(f"bin/{name}", "PROMETHEUS_MULTIPROC_DIR").read()
                        for name in ("web", "worker", "relay")
                    }
                )
            ),
            str,
        ),
    ),
    ("(cached {} s, as the API itself refreshes", constant("messaging.metrics.BROKER_CACHE_SECONDS")),
    ("(`LOG_FORMAT={}`, the default;", setting("LOG_FORMAT", str)),
    ("turns task events on in every worker it sees within {} seconds", FLOWER_ENABLES_EVENTS_WITHIN),
    (
        "and {} (`FLOWER_READ_ONLY=false` to allow",
        script(
            "bin/flower",
            "FLOWER_READ_ONLY",
            lambda value: "read-only" if value == "true" else f"read-only={value}",
        ),
    ),
    (
        "a picture of commit → sent latency over the last {} with its p50 and p95.",
        constant(
            "operations.dashboard.figures.LATENCY_WINDOW",
            lambda span: "hour" if span.total_seconds() == 3600 else str(span),
        ),
    ),
)


OPERATIONS = rows(
    "docs/operations.md",
    (
        "more than {} past the counter (a typo)",
        constant("orders.invoicing.voiding.MAX_VOID_AHEAD", thousands),
    ),
    ("`manage.py reconcile` runs it now (daily by beat at {})", RECONCILE_DAILY),
    ("| Are workers alive and busy? | Flower (`:{}`, basic auth, read-only).", FLOWER_PORT),
    (
        "the RabbitMQ management UI (`:{}`, vhost `{}`)",
        setting("RABBITMQ_MANAGEMENT_URL", lambda url: url.rsplit(":", 1)[1]),
        setting("CELERY_BROKER_URL", lambda url: url.rsplit("/", 1)[1]),
    ),
    (
        "| OutboxEventTooOld (page) | an event has waited over {} min to be published |",
        alert_threshold("OutboxEventTooOld", r"> (\d+)$", minutes),
    ),
    (
        "| MailProviderErrorRateHigh (page) | over {} % of provider calls fail |",
        alert_threshold(
            "MailProviderErrorRateHigh", r"> ([\d.]+)$", lambda share: number(float(share) * 100)
        ),
    ),
    (
        "| DeadLetterQueueGrowing (ticket) | a DLQ holds messages and grew in {} min |",
        alert_threshold("DeadLetterQueueGrowing", r"\[(\d+)m\]"),
    ),
    (
        "| EmailsWaitingTooLong (ticket) | an email unfinished for over {} min |",
        alert_threshold("EmailsWaitingTooLong", r"> (\d+)$", minutes),
    ),
    ("1. Flower (`:{}`) or `celery -A config inspect ping`", FLOWER_PORT),
    ("a lease of a dead worker runs out after {} s |", LEASE),
    ("`REVIEW_ACTION_MAX_NOTIFICATIONS` emails (default {};", REVIEW_ACTION_MAX),
    (
        "(at least {} characters: the provider's message id, the time)",
        constant("operations.review.resolve.MIN_EVIDENCE_CHARS"),
    ),
    ("(Resend for {} h, Brevo for {} min)", RESEND_KEY_WINDOW, key_window(BREVO, minutes)),
    ("Every night ({}) the reconciliation compares", RECONCILE_DAILY),
    ("for the last {} days:", constant("operations.reconciliation.run.LEDGER_DAYS")),
    ("(except those still within their first {} minutes)", STUCK_AFTER),
    (
        "is **due** {} after it was found.",
        constant(
            "operations.reconciliation.mismatches.DUE_AFTER",
            lambda span: "a day" if span.days == 1 else str(span),
        ),
    ),
    ("{} messages a page.", constant(f"{DEAD_LETTER_SCREEN}.PER_PAGE")),
    ("how many messages and which (the first {})", constant(f"{DEAD_LETTER_SCREEN}.SHOWN_IN_PREVIEW")),
    (
        "a page reads the first {} messages and one click acts on at most {};",
        constant(f"{DEAD_LETTER_SCREEN}.SCAN_LIMIT", thousands),
        constant(f"{DEAD_LETTER_SCREEN}.ACT_LIMIT"),
    ),
    ("The same idempotency key goes to the provider, which dedupes for {} h.", RESEND_KEY_WINDOW),
    (
        'More than {} messages need `--yes` (or typing "yes"); `--rate` sets the pace '
        "(default {} messages a second;",
        constant("operations.management.commands.replay_dead_letters.CONFIRM_ABOVE"),
        constant("operations.management.commands.replay_dead_letters.DEFAULT_RATE"),
    ),
    ("in a log, a line every {} seconds", default_argument("infra.progress.progress_report", "every")),
    ("for longer than the retry budget ({} h for customer emails;", EMAIL_RETRY_BUDGET),
    (
        'the dashboard says "Mail provider: open after {} failures in a row"',
        CIRCUIT_FAILURES,
    ),
    ("every {} seconds one email tests it,", CIRCUIT_OPEN_SECONDS),
    (
        "further and further apart (at most {} minutes), for {} hours from their first failure",
        EMAIL_RETRY_MAX_DELAY,
        EMAIL_RETRY_BUDGET,
    ),
    ("while the provider's {} h window is open: no duplicates.", RESEND_KEY_WINDOW),
    (
        "within `MAIL_PROVIDER_CIRCUIT_OPEN_SECONDS` ({} s) of the probe's success, the retrying ones "
        "within their next retry (at most {} minutes). Only if it was down for more than {}:",
        CIRCUIT_OPEN_SECONDS,
        EMAIL_RETRY_MAX_DELAY,
        computed(lambda: EMAIL_RETRY_BUDGET.read(), a_day),
    ),
    ("or the web's clock is more than {} minutes off.", computed(svix_tolerance_minutes)),
    ("the web process stops trying for {} s after a failure, and beat's sweep", FAST_PATH_PAUSE),
    ("so within the provider's {} h window the provider answers", RESEND_KEY_WINDOW),
    ("Restores older than the provider's window ({} h)", RESEND_KEY_WINDOW),
    (
        "A first run after a long gap deletes at most {} batches;",
        default_argument("messaging.retention.retention_run", "max_batches", thousands),
    ),
    (
        "| sent, but the provider reported nothing | after {}:",
        constant(
            "operations.reconciliation.provider_evidence.EVIDENCE_GRACE",
            lambda span: "an hour" if span.total_seconds() == 3600 else str(span),
        ),
    ),
    (
        "every unfinished email older than {} dates from before the restore point",
        constant(
            "tools.drill.restore_runbook.STUCK_AFTER", lambda value: "a minute" if value == "1m" else value
        ),
    ),
)


SHOP_REDACT = "intake.shopify.shop_redact"


SALEOR_SIGNATURE = "intake.saleor.signature"


MAX_JSON_NESTING = constant("infra.json_nesting.MAX_JSON_NESTING")


PROVIDER_EVENT_RETENTION = setting("PROVIDER_EVENT_RETENTION_DAYS")


LEDGER_DAYS = constant("operations.reconciliation.run.LEDGER_DAYS")


ORDER_RETENTION = setting("ORDER_PERSONAL_DATA_RETENTION_DAYS")


SNAPSHOT_RETENTION = setting("EMAIL_SNAPSHOT_RETENTION_DAYS")


ATTEMPT_RETENTION = setting("ATTEMPT_DETAIL_RETENTION_DAYS")


DELIVERY_BODY_RETENTION = setting("PLATFORM_DELIVERY_BODY_RETENTION_DAYS")


MIN_WITHDRAWAL_DAYS = constant("notifications.checks.MIN_WITHDRAWAL_DAYS")


ORDER_CONTENT = "orders.content"
DOCUMENT_TEMPLATE = "notifications.documents.template"


RUNBOOK = rows(
    "docs/runbook.md",
    ("| Flower | port {} |", FLOWER_PORT),
    (
        "when it is due ({} after it was found).",
        constant(
            "operations.reconciliation.mismatches.DUE_AFTER",
            lambda span: "a day" if span.days == 1 else str(span),
        ),
    ),
    ("One action takes at most {} emails", REVIEW_ACTION_MAX),
    ("*Mail provider: open after {} failures in a row*;", CIRCUIT_FAILURES),
    ('"The mail provider failed {} times in a row; no worker calls it until …"', CIRCUIT_FAILURES),
    ("try one email every {} seconds,", CIRCUIT_OPEN_SECONDS),
    ("because of an outage shorter than {};", computed(lambda: EMAIL_RETRY_BUDGET.read(), a_day)),
    ("One click takes at most {} messages", constant(f"{DEAD_LETTER_SCREEN}.ACT_LIMIT")),
    ("shows emails *pending* for more than {} minutes while the provider is fine.", STUCK_AFTER),
)


EMAIL_CONTENT = rows(
    "docs/email-content.md",
    (
        "or a subject over {} characters, is refused.",
        constant("notifications.content.render.SUBJECT_MAX_CHARS"),
    ),
    *[
        (f"| `{variable}` | `{{}}` |", setting(name, str))
        for variable, name in (
            ("SHOP_NAME", "SHOP_NAME"),
            ("SHOP_URL", "SHOP_URL"),
            ("SHOP_LOGO_URL", "SHOP_LOGO_URL"),
            ("SHOP_PRIMARY_COLOR", "SHOP_PRIMARY_COLOR"),
            ("SHOP_TEXT_COLOR", "SHOP_TEXT_COLOR"),
            ("SHOP_SUPPORT_EMAIL", "SHOP_SUPPORT_EMAIL"),
            ("SHOP_DEFAULT_LOCALE", "LANGUAGE_CODE"),
            ("SHOP_LEGAL_NAME", "SHOP_LEGAL_NAME"),
            ("SHOP_LEGAL_ADDRESS", "SHOP_LEGAL_ADDRESS"),
            ("SHOP_PHONE", "SHOP_PHONE"),
            ("SHOP_TERMS_URL", "SHOP_TERMS_URL"),
            ("SHOP_WITHDRAWAL_URL", "SHOP_WITHDRAWAL_URL"),
            ("SHOP_WITHDRAWAL_DAYS", "SHOP_WITHDRAWAL_DAYS"),
        )
    ],
    (
        "| `SHOP_FOOTER_ADDRESS` | `{}, …` |",
        setting("SHOP_FOOTER_ADDRESS", lambda address: address.split(",")[0]),
    ),
    (
        "| `SHOP_REGISTER` | `{}` |",
        setting(
            "SHOP_REGISTER", lambda text: re.sub(r"^(\w+) .*? (HRB \d+, VAT ID DE).*$", r"\1 … \2…", text)
        ),
    ),
    ("the withdrawal period (at least {}) |", MIN_WITHDRAWAL_DAYS),
    ("a withdrawal period under {} days.", MIN_WITHDRAWAL_DAYS),
    ("`config/settings/base.py`: {});", LANGUAGES),
    (
        "An order has up to {} kinds of email:",
        computed(lambda: len(constant("notifications.events.EMAIL_KIND_OF_EVENT").read()), words),
    ),
    (
        "every `EMAIL_FOLLOWING_WAIT_SECONDS`, {} s, or every `EMAIL_FOLLOWING_PERSON_WAIT_SECONDS`, {} s,",
        setting("EMAIL_FOLLOWING_WAIT_SECONDS"),
        setting("EMAIL_FOLLOWING_PERSON_WAIT_SECONDS"),
    ),
    (
        "A loop alone repeats its body at most {} times (the API's limit of lines per order)",
        constant(f"{ORDER_CONTENT}.MAX_LINES"),
    ),
    (
        "a template part of at most {} characters, a rendered part of at most {}, CSS that inlining "
        "could not blow up (tags times characters of CSS in `<style>` at most {},",
        constant("notifications.content.render_limits.TEMPLATE_MAX_CHARS", thousands),
        constant("notifications.content.render_limits.PART_MAX_CHARS", thousands),
        constant("notifications.content.render_limits.INLINE_WORK_MAX", thousands),
    ),
    ("`EMAIL_RENDER_MAX_CPU_SECONDS` ({} s) of CPU", setting("EMAIL_RENDER_MAX_CPU_SECONDS")),
    ("the withdrawal period in days (at least {}) |", MIN_WITHDRAWAL_DAYS),
    *[
        (
            f"| {amount} {currency}{where} | {{}} | {{}}",
            money(amount, currency, "en"),
            money(amount, currency, "ru"),
        )
        for amount, currency, where in (
            ("49.90", "EUR", ", `{{ order.amount }}`"),
            ("1500", "JPY", ""),
            ("1.25", "KWD", ""),
        )
    ],
    ("| the day placed, `{{ order.placed_on }}` | {} | {} |", placed_on("en"), placed_on("ru")),
    (
        "({} for JPY, {} for KWD)",
        computed(lambda: currency_decimals("JPY"), lambda places: "none" if places == 0 else words(places)),
        computed(lambda: currency_decimals("KWD"), words),
    ),
)


INVOICE_RETENTION_YEARS = constant("orders.models.invoices.RETENTION_YEARS")


# The year a document issued in 2016 may go: its period runs from the end of the year of issue.
INVOICE_FREED_2016 = computed(lambda: 2016 + INVOICE_RETENTION_YEARS.read() + 1)


ORDERS = rows(
    "docs/orders.md",
    ("`INVOICE_ISSUED_WHEN` chooses: `{}` (the default),", setting("INVOICE_ISSUED_WHEN")),
    (
        "`PARCEL_IN_TRANSIT_EMAIL` (`{}` by default)",
        setting("PARCEL_IN_TRANSIT_EMAIL", lambda on: str(on).lower()),
    ),
    (
        "(`CREDIT_NOTE_NUMBER_PREFIX`), printed with {} digits.",
        constant("orders.invoicing.issue.NUMBER_DIGITS", words),
    ),
    ("Orders keep amounts to {} decimals,", constant("orders.currencies.STORED_DECIMALS", words)),
    ("| lines per order | 1 to {} |", constant(f"{ORDER_CONTENT}.MAX_LINES")),
    ("| discounts per order | at most {} |", constant(f"{ORDER_CONTENT}.MAX_DISCOUNTS")),
    ("| quantity of a line | 1 to {} |", constant(f"{ORDER_CONTENT}.MAX_QUANTITY", thousands)),
    (
        "| any amount | 0 to {} minor units",
        constant(
            f"{ORDER_CONTENT}.MAX_MINOR_AMOUNT", lambda amount: "10¹³" if amount == 10**13 else str(amount)
        ),
    ),
    ("`postal_code`, `phone` | {} characters |", constant(f"{ORDER_CONTENT}.SHORT_TEXT")),
    ("discount `description`, `payment_method` | {} characters |", constant(f"{ORDER_CONTENT}.NAME_TEXT")),
    ("| `customer_email` | {} characters |", field_max_length("orders.models.Order", "customer_email")),
    (
        "shows the first {} characters of the order's id.",
        computed(short_order_number_length, words),
    ),
    ("is the shop's own id of the parcel, up to {} characters.", constant(f"{ORDER_CONTENT}.SHORT_TEXT")),
    ("`reason` (optional, {} characters)", constant(f"{ORDER_CONTENT}.NAME_TEXT")),
    ("once its period is over: {} years from the end of the calendar year of issue", INVOICE_RETENTION_YEARS),
    (
        "or its layout takes more than `LAYOUT_MAX_CPU_SECONDS` ({} s) of CPU, or {} s in all:",
        constant(f"{DOCUMENT_TEMPLATE}.LAYOUT_MAX_CPU_SECONDS"),
        constant(f"{DOCUMENT_TEMPLATE}.LAYOUT_MAX_WALL_SECONDS"),
    ),
    (
        "in a font of at least `MIN_SHOWN_FONT_SIZE_PT` ({} pt) as",
        constant("notifications.documents.shown_boxes.MIN_SHOWN_FONT_SIZE_PT"),
    ),
    (
        "`MIN_SHOWN_CONTRAST` ({}, WCAG's ratio; black on white is {})",
        constant("notifications.documents.painted_colours.MIN_SHOWN_CONTRAST"),
        computed(lambda: contrast_ratio((0.0, 0.0, 0.0), WHITE), lambda ratio: number(round(ratio, 2))),
    ),
    (
        "one too pale, down to a contrast ratio of `MIN_SEEN_CONTRAST` ({}), one too small, down to "
        "`MIN_SEEN_FONT_SIZE_PT` ({} pt),",
        constant("notifications.documents.painted_colours.MIN_SEEN_CONTRAST"),
        constant("notifications.documents.shown_boxes.MIN_SEEN_FONT_SIZE_PT"),
    ),
    (
        "no wider than `GROUP_GAP_SHARE` ({}) of a word space of their font",
        constant("notifications.documents.digit_groups.GROUP_GAP_SHARE"),
    ),
    (
        "fill narrower than `COVER_SHARE` ({}) of its capitals",
        constant("notifications.documents.painted_colours.COVER_SHARE"),
    ),
    (
        "the sample invoice or credit note takes more than {} pages.",
        constant("notifications.documents.template_check.SAMPLE_MAX_PAGES"),
    ),
    ("a real invoice repeats a line's part up to {} times", constant(f"{ORDER_CONTENT}.MAX_LINES")),
    (
        "a template of at most {} characters, rendered to at most {}",
        constant("notifications.content.render_limits.TEMPLATE_MAX_CHARS", thousands),
        constant("notifications.documents.template_language.DOCUMENT_HTML_MAX_CHARS", thousands),
    ),
)


PERSONAL_DATA = rows(
    "docs/personal-data.md",
    ("each cleared by the {} retention job,", RETENTION_HOURLY),
    (
        "empties published outbox events (after {} days), the inbox ({} days) and the mail provider's "
        "delivery events ({} days, once applied); Celery's task results go after {} days.",
        setting("OUTBOX_RETENTION_DAYS"),
        setting("INBOX_RETENTION_DAYS"),
        PROVIDER_EVENT_RETENTION,
        setting("CELERY_RESULT_EXPIRES", days),
    ),
    (
        "The {} retention job (`messaging/retention.py`",
        RETENTION_HOURLY,
    ),
    ("`PERSONAL_DATA_RETENTION_BATCH_SIZE` rows ({}),", setting("PERSONAL_DATA_RETENTION_BATCH_SIZE")),
    ("`PERSONAL_DATA_RETENTION_PACE` ({}) of the time", setting("PERSONAL_DATA_RETENTION_PACE", a_twentieth)),
    ("| {} days after the email finished (`EMAIL_SNAPSHOT_RETENTION_DAYS`) |", SNAPSHOT_RETENTION),
    ("| {} days after the call (`ATTEMPT_DETAIL_RETENTION_DAYS`) |", ATTEMPT_RETENTION),
    ("| {} days after it came (`PLATFORM_DELIVERY_BODY_RETENTION_DAYS`) |", DELIVERY_BODY_RETENTION),
    (
        "| A {} after the order (`ORDER_PERSONAL_DATA_RETENTION_DAYS`), once none",
        setting(
            "ORDER_PERSONAL_DATA_RETENTION_DAYS",
            lambda days: "year" if days == 365 else f"period of {days} days",
        ),
    ),
    ("A year after the order was placed (`ORDER_PERSONAL_DATA_RETENTION_DAYS`, {})", ORDER_RETENTION),
    (
        "| {} years after the year of issue (`orders.models.invoices.RETENTION_YEARS`), whatever the",
        INVOICE_RETENTION_YEARS,
    ),
    (
        "in the same batches and pace): {} years from the end of the calendar year of issue",
        INVOICE_RETENTION_YEARS,
    ),
    ("so a document issued in 2016 goes on 1 January {}.", INVOICE_FREED_2016),
    (
        "| {} days after it came (`PLATFORM_DELIVERY_BODY_RETENTION_DAYS`), or until the erasure |",
        DELIVERY_BODY_RETENTION,
    ),
    (
        "| {} days after the email finished (`EMAIL_SNAPSHOT_RETENTION_DAYS`); with its order",
        SNAPSHOT_RETENTION,
    ),
    ("| {} days after the call (`ATTEMPT_DETAIL_RETENTION_DAYS`), or until the erasure |", ATTEMPT_RETENTION),
    ("| `PROVIDER_EVENT_RETENTION_DAYS` ({}) after it arrived, once applied;", PROVIDER_EVENT_RETENTION),
    ("| `CELERY_RESULT_EXPIRES`: {} days after it was stored |", setting("CELERY_RESULT_EXPIRES", days)),
    (
        "Celery's `celery.backend_cleanup`, every day at {}:",
        computed(celery_backend_cleanup_schedule, at_time_of_day),
    ),
    ("| The work queues ({}) and the delayed retries", WORK_QUEUES),
    ("at most the event type's retry budget ({} hours for an email)", EMAIL_RETRY_BUDGET),
    (
        "Flower keeps the task events it has seen (at most {} tasks, its default)",
        constant("flower.options.options.max_tasks", thousands),
    ),
    ("only within the provider's key window ({});", key_window(RESEND, a_day)),
    (
        "with its order after {};",
        computed(lambda: ORDER_RETENTION.read(), lambda days: "a year" if days == 365 else f"{days} days"),
    ),
    ("| The {} retention job's `provider_events` step", RETENTION_HOURLY),
    (
        "A session expires {} after it was last written (Django's `SESSION_COOKIE_AGE`), and is deleted "
        "within the {} after that",
        setting("SESSION_COOKIE_AGE", lambda age: "two weeks" if age == 14 * 86400 else f"{days(age)} days"),
        beat_job("retention-hourly", lambda every: "hour" if hourly(every) == "hourly" else str(every)),
    ),
    ("the {} retention job's `expired_sessions` step deletes an expired one", RETENTION_HOURLY),
)


PLATFORMS_DOC = rows(
    "docs/platforms.md",
    ("only its last {} characters;", computed(secret_hint_length, words)),
    ("(oldest first, a page of {} at a time)", constant("intake.woocommerce.backfill.PAGE_SIZE")),
    (
        "The shop's keys are kept for {} minutes;",
        constant(f"{SALEOR_SIGNATURE}.KEYS_FRESH_FOR", lambda s: words(int(s // 60))),
    ),
    ("but not more than once every {} seconds,", constant(f"{SALEOR_SIGNATURE}.REFETCH_AT_MOST_EVERY")),
    (
        "Shopify sends it {} hours after the app was uninstalled, when the shop's webhooks are removed, and "
        "retries a delivery made before for up to {} hours, so a genuine one comes after the shop has had no "
        "delivery for `SHOP_REDACT_QUIET` ({} hours,",
        hours_of(f"{SHOP_REDACT}.SENT_AFTER_UNINSTALL"),
        hours_of(f"{SHOP_REDACT}.RETRIED_FOR"),
        hours_of(f"{SHOP_REDACT}.SHOP_REDACT_QUIET"),
    ),
    (
        "**At most `PLATFORM_EDITS_PER_ORDER_MAX` edits of one order** ({}):",
        setting("PLATFORM_EDITS_PER_ORDER_MAX"),
    ),
    (
        "| a body over `PLATFORM_WEBHOOK_MAX_BODY_BYTES` ({} MiB) |",
        setting("PLATFORM_WEBHOOK_MAX_BODY_BYTES", mebibytes),
    ),
    ("and Shopify retries (up to 8 times over {} hours).", hours_of(f"{SHOP_REDACT}.RETRIED_FOR")),
    ("a delivery whose time is more than {} hour past our clock", hours_of("intake.same_time.FUTURE_SLACK")),
    (
        "so that Shopify does not retry it for {} hours",
        constant(f"{SHOP_REDACT}.RETRIED_FOR", lambda span: words(int(span.total_seconds() // 3600))),
    ),
    (
        "through the API: {} of the deliveries twice",
        constant("tools.demo.platforms.TWICE_SHARE", share_in_words),
    ),
    ("then carried out by the {} job (`intake/privacy_requests.py`)", RETENTION_HOURLY),
)


PROVIDERS_DOC = rows(
    "docs/providers.md",
    (
        "(named `mailsim`, or on its port {});",
        computed(
            lambda: (
                constant("notifications.providers.production_url.SIMULATOR_PORT").read()
                if str(constant("notifications.providers.production_url.SIMULATOR_PORT").read())
                == MAILSIM_PORT.read()
                else "the simulator's port and the production check's differ"
            )
        ),
    ),
    (
        "| Resend HTTP API | {} h (`Idempotency-Key` header) |",
        RESEND_KEY_WINDOW,
    ),
    (
        "effect-once for {} h from the first attempt (minus a {} min margin);",
        RESEND_KEY_WINDOW,
        KEY_WINDOW_MARGIN,
    ),
    ("| Brevo transactional API | {} min (`idempotencyKey`", key_window(BREVO, minutes)),
    ("(Brevo through Anymail: {} min)", key_window(BREVO, minutes)),
    (
        '`retries={"total_max_attempts": {}}`',
        source_match("notifications/providers/ses.py", r'"total_max_attempts": (\d+)'),
    ),
    (
        "`MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS` ({}), `MAIL_PROVIDER_READ_TIMEOUT_SECONDS` ({}).",
        setting("MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS"),
        setting("MAIL_PROVIDER_READ_TIMEOUT_SECONDS"),
    ),
    ("a timestamp more than {} minutes off is refused", computed(svix_tolerance_minutes)),
    (
        "| events {}; copy the signing secret",
        Names(lambda: list(constant("notifications.tracking.resend.KINDS").read())),
    ),
    ("nested at most {} levels:", MAX_JSON_NESTING),
    ("(django-anymail {},", pinned("django-anymail")),
    ("Anymail {} does not verify SNS message signatures", pinned("django-anymail")),
    (
        "kept `PROVIDER_EVENT_RETENTION_DAYS` ({}, at least the reconciliation's {})",
        PROVIDER_EVENT_RETENTION,
        LEDGER_DAYS,
    ),
    ("`PROVIDER_EVIDENCE_WAIT_HOURS` ({}, longer than", setting("PROVIDER_EVIDENCE_WAIT_HOURS")),
    (
        "add `https://<host>/webhooks/resend/` with the {} `email.*` events above;",
        computed(lambda: len(constant("notifications.tracking.resend.KINDS").read()), words),
    ),
    (
        "(at least {} characters; where basic auth is the ESP's only check",
        constant("notifications.providers.anymail_webhooks.BASIC_AUTH_MIN_PASSWORD"),
    ),
    ("names a second provider (any of the {},", computed(lambda: len(PROVIDERS.read()), words)),
    ("| `resend` | {} MB |", constant("notifications.providers.resend.MAX_EMAIL_BYTES", megabytes)),
    ("| `brevo` | {} MB |", constant("notifications.providers.brevo.MAX_EMAIL_BYTES", megabytes)),
    ("| `ses` | {} MB (SES v2;", constant("notifications.providers.ses.MAX_MESSAGE_BYTES", megabytes)),
    (
        "`ANYMAIL_MAX_MESSAGE_BYTES` ({}; Postmark's {} MB,",
        setting("ANYMAIL_MAX_MESSAGE_BYTES", thousands),
        setting("ANYMAIL_MAX_MESSAGE_BYTES", megabytes),
    ),
    ("else `EMAIL_MAX_MESSAGE_BYTES` ({})", setting("EMAIL_MAX_MESSAGE_BYTES", thousands)),
    (
        "drops the connection on the first {} sends it takes,",
        constant("tools.drill.outage.ONSET_DROPS", words),
    ),
    (
        "then answers 503 to everything for {} minutes while orders arrive.",
        computed(
            lambda: constant("tools.drill.outage.OutageConfig").read().outage_seconds / 60,
            lambda m: words(int(m)),
        ),
    ),
    ("then the {} retention job deletes the applied ones;", RETENTION_HOURLY),
)


SECURITY = rows(
    "docs/security.md",
    (
        "refetched for an unknown key id at most every {} s;",
        constant(f"{SALEOR_SIGNATURE}.REFETCH_AT_MOST_EVERY"),
    ),
    ("(its last {} characters only)", computed(secret_hint_length, words)),
    (
        "`tests/integration/api/test_api_fuzz.py` ({} seeded examples per operation:",
        source_literal("tests/integration/api/test_api_fuzz.py", "EXAMPLES_PER_OPERATION"),
    ),
    (
        "`tests/integration/api/test_api_hostile_input.py` ({} hostile strings in every field;",
        source_literal("tests/integration/api/test_api_hostile_input.py", "HOSTILE"),
    ),
    ("the development key, a key under {} characters,", SECRET_KEY_MIN_LENGTH),
    (
        "Tokens are {}-bit random values,",
        constant("apiauth.services.TOKEN_RANDOM_BYTES", lambda size: str(size * 8)),
    ),
    ("at most {} levels (`infra/json_nesting.py`", MAX_JSON_NESTING),
    ("review actions take at most `REVIEW_ACTION_MAX_NOTIFICATIONS` ({})", REVIEW_ACTION_MAX),
    (
        "Django's password validators (at least {} characters,",
        setting(
            "AUTH_PASSWORD_VALIDATORS",
            lambda validators: str(
                next(
                    v["OPTIONS"]["min_length"]
                    for v in validators
                    if v["NAME"].endswith("MinimumLengthValidator")
                )
            ),
        ),
    ),
    ("at most the retry budget ({} hours for customer emails)", EMAIL_RETRY_BUDGET),
    (
        "production refuses to start without a key of its own of at least {} characters.",
        constant("config.settings.safety.HASH_KEY_MIN_LENGTH"),
    ),
    ("deleted by the {} retention job,", RETENTION_HOURLY),
    ("the hint of the last {} characters stays", computed(secret_hint_length, words)),
)


DRILL_LOAD = "tools.drill.load"


DRILL_CONFIG = "tools.drill.harness.DrillConfig"


OUTAGE_DRILL_TEST = "tests/system/test_drill_outage.py"


SKIP_VOID = "restore-skip-void-latest"


def _restore_counts(*names: str) -> tuple[Figure, ...]:
    """Counts of the restore drill's committed report, in the order given."""
    return tuple(_restore_count(name) for name in names)


def _restore_count(name: str) -> Figure:
    return restore_reported(lambda report: report["counts"][name])


def _restore_placing(report: dict) -> dict:
    return restore_step(report, f"place {report['counts']['orders_asked']} orders")


def _restore_to_settled(report: dict) -> float:
    """From pg_restore's start to the end of the last step (every email final), in seconds."""
    last = report["steps"][-1]
    return round(last["at"] + last["seconds"] - restore_step(report, "pg_restore")["at"], 1)


def _restore_in_flight(report: dict) -> int:
    note = restore_step(report, "manage.py reconcile --after-restore")["note"]
    found = re.search(r"(\d+) event\(s\) of emails in flight at the restore point published again", note)
    assert found, note
    return int(found.group(1))


def _runs(runs: list[list[int]]) -> str:
    return ", ".join(f"{first}..{last}" for first, last in runs)


def _emailed_past_the_reissued(report: dict) -> int:
    """The numbers emailed before the restore past the last one given again after it."""
    series = restore_series(report)
    return series["to_void"][1] - series["issued_after_the_restore"][1]


def _documents(report: dict) -> int:
    return sum(kind["count"] for kind in report["database_verdict"]["invoices"]["by_kind"].values())


DRILLS = rows(
    "docs/drills.md",
    (
        "`tests/system/test_drill.py` does with {} orders in `make test-tools`",
        source_match("tests/system/test_drill.py", r"DrillConfig\(orders=(\d+)"),
    ),
    (
        "`bin/web`, {} `bin/relay`, {} `bin/worker`,",
        constant(f"{DRILL_CONFIG}.relays", words),
        constant(f"{DRILL_CONFIG}.workers", words),
    ),
    ("each request has a deadline ({} min),", constant(f"{DRILL_LOAD}.GIVE_UP_AFTER_SECONDS", minutes)),
    (
        "{} orders in {} are a shop's, with {} to {} lines; the fourth is in the short body. {} % are paid, "
        "{} % "
        "cancelled at once, {} % cancelled a few seconds later; of the shop orders not cancelled, {} % ship "
        "in two "
        "parcels (the first line, then the rest), and {} of those refund the first parcel",
        constant(f"{DRILL_LOAD}.SHORT_BODY_EVERY", lambda every: words(every - 1).capitalize()),
        constant(f"{DRILL_LOAD}.SHORT_BODY_EVERY", words),
        constant(f"{DRILL_LOAD}.LINES_PER_ORDER", lambda lines: words(lines[0])),
        constant(f"{DRILL_LOAD}.LINES_PER_ORDER", lambda lines: words(lines[1])),
        constant(f"{DRILL_LOAD}.PAID_SHARE", percent),
        constant(f"{DRILL_LOAD}.CANCELLED_AT_ONCE_SHARE", percent),
        constant(f"{DRILL_LOAD}.CANCELLED_LATER_SHARE", percent),
        constant(f"{DRILL_LOAD}.SHIPPED_SHARE", percent),
        constant(f"{DRILL_LOAD}.REFUNDED_SHARE", share_in_words),
    ),
    (
        "(the default {} refuses most of a {}/s stream): `API_THROTTLE_RATE` = orders/s × {} requests",
        setting("API_THROTTLE_RATE", str),
        constant(f"{DRILL_CONFIG}.rate"),
        constant(f"{DRILL_LOAD}.REQUESTS_PER_ORDER_MAX"),
    ),
    (
        "× {} for headroom (retries, the catch-up after a stall) per minute, {} at {}/s",
        constant(f"{DRILL_LOAD}.THROTTLE_HEADROOM"),
        computed(
            lambda: constant(f"{DRILL_LOAD}.api_throttle_rate_for").read()(
                constant(f"{DRILL_CONFIG}.rate").read()
            ),
            lambda rate: thousands(int(rate.split("/")[0])) + "/" + rate.split("/")[1],
        ),
        constant(f"{DRILL_CONFIG}.rate"),
    ),
    (
        "publish {}–{} more copies of {} % of the published events,",
        constant("tools.drill.chaos.REPUBLISHED_COPIES", lambda copies: str(copies[0])),
        constant("tools.drill.chaos.REPUBLISHED_COPIES", lambda copies: str(copies[-1])),
        constant("tools.drill.chaos.REPUBLISHED_SHARE", percent),
    ),
    (
        "{} % 503, {} % 429 with `Retry-After`, {} % stalls past the client's read timeout "
        "(stored, answer lost), {} % accept-then-drop;",
        provider_fault("503"),
        provider_fault("429"),
        provider_fault("stall"),
        provider_fault("accept_then_drop"),
    ),
    (
        "and {} of the events twice,",
        constant("tools.drill.chaos.WEBHOOK_FAULTS", lambda faults: share_in_words(faults["duplicate_rate"])),
    ),
    (
        "runs a short drill whose API lets {} requests a minute through",
        source_match("tests/system/test_drill.py", r'api_throttle_rate="(\d+)/min"'),
    ),
    ("given up (the first {} listed)", source_match("tools/drill/report.py", r"given_up_requests\[:(\d+)\]")),
    (
        "every delivery is posted {} to {} times under one `X-Shopify-Event-Id`, the copies spread over {} "
        "seconds,",
        constant("tools.drill.platform_load.COPIES", lambda copies: str(copies[0])),
        constant("tools.drill.platform_load.COPIES", lambda copies: str(copies[1])),
        constant("tools.drill.platform_load.SPREAD_SECONDS"),
    ),
    (
        "paid; {} % shipped, one parcel per line, {} of those with the first line refunded; {} % cancelled.",
        constant("tools.drill.platform_load.SHIPPED_SHARE", percent),
        constant("tools.drill.platform_load.REFUNDED_SHARE", share_in_words),
        constant("tools.drill.platform_load.CANCELLED_SHARE", percent),
    ),
    (
        "`tests/system/test_drill.py` runs {} orders of it in `make test-tools`",
        source_match(
            "tests/system/test_drill.py",
            r"DrillConfig\(orders=(\d+), rate=\d+, kill_every=\d+, platform=True",
        ),
    ),
    ("`make drill-restore` (`ORDERS={}` unless given;", makefile_target_variable("drill-restore", "ORDERS")),
    ("when {} of them are placed,", constant("tools.drill.restore.RestoreConfig.dump_at", share_in_words)),
    (
        "From {} before the dump until it ends the provider answers each send {} late",
        constant("tools.drill.restore_parts.HOLD_LEAD_SECONDS", seconds_in_words),
        constant("tools.drill.restore.RestoreConfig.provider_hold", seconds_in_words),
    ),
    (
        "the workers stop and {} % more orders (at least {}) are placed",
        computed(lambda: restore_queued_at_stop(1000) / 10, number),
        computed(lambda: restore_queued_at_stop(1)),
    ),
    (
        "`manage.py reconcile --repair --stuck-after {}` (the safety net",
        constant("tools.drill.restore_runbook.STUCK_AFTER", str),
    ),
    (
        "`tests/system/test_drill_restore.py` runs {} orders",
        source_match("tests/system/test_drill_restore.py", r"RestoreConfig\(orders=(\d+)"),
    ),
    ("with its default threshold of {} minutes would have left them pending", STUCK_AFTER),
    (
        "The latest run ([drills/restore-latest.md](drills/restore-latest.md)), {} orders offered at {}/s "
        "(placed in {} s on the 2-core machine, shared with other runs): {}.",
        restore_reported(lambda report: report["counts"]["orders_asked"]),
        restore_reported(lambda report: report["config"]["rate"]),
        restore_reported(lambda report: _restore_placing(report)["seconds"]),
        restore_reported(lambda report: report["outcome"], str),
    ),
    (
        "{} orders placed before the dump, {} after it ({} of them in the dump), {} with the workers "
        "stopped, {} paid after the restore; {} orders in the restored database, {} lost by the restore "
        "({} whose customers had their emails, once; {} dead-lettered with class `restore`, no email).",
        *_restore_counts(
            "orders_placed_before_the_dump",
            "orders_placed_after_the_dump_started",
            "orders_after_the_dump_in_the_restored_database",
            "orders_queued_at_the_stop_placed",
            "orders_paid_after_the_restore_placed",
            "orders_in_the_restored_database",
            "orders_lost_by_the_restore",
            "orders_lost_by_the_restore_whose_customer_got_their_email_once",
            "orders_queued_at_the_stop_dead_lettered_restore",
        ),
    ),
    (
        "{} emails accepted by the provider in all, one message per key; {} sent again after the restore, "
        "all under their original keys, all replayed; {} duplicates, {} lost.",
        *_restore_counts(
            "emails_accepted_in_all",
            "emails_resent_after_the_restore",
            "duplicates_to_a_customer",
            "lost_emails_of_restored_orders",
        ),
    ),
    (
        "From `pg_restore` to settled: {} s ({} s of it starting the processes). The after-restore check "
        "published again the events of the {} emails in flight at the restore point",
        restore_reported(_restore_to_settled),
        restore_reported(lambda report: restore_step(report, "start web, relays")["seconds"]),
        restore_reported(_restore_in_flight),
    ),
    (
        "Invoices: {} documents emailed before the dump and {} after it; the restore left the series' "
        "counter to give {} next, and the simulator's messages had numbers up to {}: {} numbers ({}) "
        "voided before the web started; the {} documents issued after the restore took {}; {} numbers "
        "given twice.",
        *_restore_counts(
            "invoice_documents_emailed_before_the_dump", "invoice_documents_emailed_after_the_dump_started"
        ),
        restore_reported(lambda report: restore_series(report)["restored_counter_next"]),
        restore_reported(lambda report: restore_series(report)["to_void"][1]),
        *_restore_counts("invoice_numbers_voided"),
        restore_reported(lambda report: restore_series(report)["voided"], _runs),
        *_restore_counts("invoice_documents_issued_after_the_restore"),
        restore_reported(lambda report: [restore_series(report)["issued_after_the_restore"]], _runs),
        *_restore_counts("invoice_numbers_given_twice"),
    ),
    (
        "cancelled; {} in this run), and the delivery states the provider's webhooks reported after the "
        "dump ({} sent emails without one at the end).",
        *_restore_counts("cancellations_the_restore_lost", "sent_emails_without_a_delivery_state"),
    ),
    (
        "The latest run ([drills/restore-skip-void-latest.md](drills/restore-skip-void-latest.md)): **{}**. "
        "The restore left the counter to give {} next, below the numbers emailed up to {}; the {} documents "
        "issued after the restore took {}, each already emailed for another document: {} numbers given "
        "twice, and the {} emailed after them held by no document and voided by nobody,",
        restore_reported(lambda report: report["outcome"], str, name=SKIP_VOID),
        restore_reported(lambda report: restore_series(report)["restored_counter_next"], name=SKIP_VOID),
        restore_reported(lambda report: restore_series(report)["to_void"][1], name=SKIP_VOID),
        restore_reported(
            lambda report: report["counts"]["invoice_documents_issued_after_the_restore"], name=SKIP_VOID
        ),
        restore_reported(
            lambda report: [restore_series(report)["issued_after_the_restore"]], _runs, SKIP_VOID
        ),
        restore_reported(lambda report: report["counts"]["invoice_numbers_given_twice"], name=SKIP_VOID),
        restore_reported(_emailed_past_the_reissued, name=SKIP_VOID),
    ),
    (
        "The invoices' verdict of the fault drill finds {} problems in that database (its {} documents "
        "are numbered 1..{}, no gap, none twice)",
        restore_reported(lambda report: report["database_verdict"]["invoices"]["problems"], name=SKIP_VOID),
        restore_reported(_documents, name=SKIP_VOID),
        restore_reported(_documents, name=SKIP_VOID),
    ),
    (
        "`make drill-outage` (`python -m tools.drill.outage --minutes {} --rate {} --mail-rate-limit {}`;",
        makefile_default("OUTAGE_MINUTES"),
        makefile_default("OUTAGE_RATE"),
        makefile_default("OUTAGE_MAIL_RATE_LIMIT"),
    ),
    (
        "back-offs from {} s up to the email's {} minutes, a {}-hour retry budget, {} s provider timeouts, "
        "a {} s "
        "lease, the circuit opening after {} failures for {} s; and `MAIL_PROVIDER_RATE_LIMIT` {}/s.",
        BASE_DELAY,
        EMAIL_RETRY_MAX_DELAY,
        EMAIL_RETRY_BUDGET,
        setting("MAIL_PROVIDER_READ_TIMEOUT_SECONDS"),
        LEASE,
        CIRCUIT_FAILURES,
        CIRCUIT_OPEN_SECONDS,
        outage_config("mail_rate_limit"),
    ),
    (
        "Orders arrive at a steady {} a second for {}, then the simulator takes the first {} sends",
        outage_config("rate"),
        outage_config("before_seconds", seconds_in_words),
        constant("tools.drill.outage.ONSET_DROPS", words),
    ),
    (
        "answers 503 to every send after them, for {} minutes; then orders go on for {} more; the fault is "
        "lifted "
        "and the drill waits (up to {} minutes)",
        outage_config("outage_seconds", lambda span: words(int(span // 60))),
        outage_config("after_seconds", seconds_in_words),
        outage_config("settle_timeout", minutes),
    ),
    (
        "(⌊outage / {} s⌋ + 1): {} + {} × {} × {} + {} = {} for ten minutes;",
        CIRCUIT_OPEN_SECONDS,
        *[outage_bound(part) for part in range(6)],
    ),
    (
        "at most 1 + the limit × the window take a token in any closed window: {} in a second, {} in ten "
        "seconds at "
        "{}/s.",
        rate_bound(1, travel=False),
        rate_bound(10, travel=False),
        outage_config("mail_rate_limit"),
    ),
    (
        "so the verdict allows {} s of that: at most {} arrivals in any sliding 1-second window and {} in "
        "any 10 "
        "seconds.",
        constant("tools.drill.outage_verdict.TRAVEL_SECONDS"),
        rate_bound(1, travel=True),
        rate_bound(10, travel=True),
    ),
    (
        "they wait on the circuit (its {} s and up to {} s of jitter;",
        CIRCUIT_OPEN_SECONDS,
        constant("notifications.delivery.circuit.WAIT_JITTER_SECONDS"),
    ),
    ("not the {}-minute maximum back-off.", EMAIL_RETRY_MAX_DELAY),
    (
        "its first within {} s of the outage's start.",
        constant("tools.drill.outage_fallback.TAKEOVER_BOUND_SECONDS"),
    ),
    ("it runs with a sending limit of {} a second,", outage_config("mail_rate_limit")),
    (
        "runs each short: {} of outage at {} order a second,",
        source_match(OUTAGE_DRILL_TEST, r'"outage_seconds": (\d+)', seconds_in_words),
        source_match(OUTAGE_DRILL_TEST, r'"rate": (\d+)', words),
    ),
    (
        "a drain under {} minutes;",
        source_match(OUTAGE_DRILL_TEST, r"drain_seconds < (\d+)", lambda s: words(int(s) // 60)),
    ),
    (
        "the rest through the fallback within seconds, p99 under {} s;",
        source_match(OUTAGE_DRILL_TEST, r'free\["p99"\] < (\d+)'),
    ),
    (
        "`make drill HOSTS=2 ORDERS={}` (or `python -m tools.drill --hosts 2 --orders {}`;",
        two_hosts("orders"),
        two_hosts("orders"),
    ),
    ("its own /24 from {} (a benchmark range", constant("tools.drill.netns.DRILL_RANGE", str)),
    (
        "host a is {}, its root side {}; host b {} and {}.",
        computed(lambda: constant("tools.drill.netns.host_addresses").read()(1)[1], str),
        computed(lambda: constant("tools.drill.netns.host_addresses").read()(1)[0], str),
        computed(lambda: constant("tools.drill.netns.host_addresses").read()(2)[1], str),
        computed(lambda: constant("tools.drill.netns.host_addresses").read()(2)[0], str),
    ),
    (
        "Every provider call answers after {} s (a slow provider, inside the {} s read timeout)",
        constant("tools.drill.two_hosts.PROVIDER_LATENCY", lambda latency: number(latency["seconds"])),
        drill_clock("MAIL_PROVIDER_READ_TIMEOUT_SECONDS"),
    ),
    ("{} into the stream,", two_hosts("cut_after", lambda share: share_in_words(share).capitalize())),
    (
        "for the lease + {} s ({} s), then comes back.",
        constant("tools.drill.two_hosts.CUT_PAST_LEASE_SECONDS"),
        two_hosts("effective_cut_seconds"),
    ),
    (
        "The drill's clocks: lease {} s, hard time limit {} s, soft {} s, provider {} + {} s, and its "
        "RabbitMQ "
        "node's heartbeat timeout {} s",
        two_hosts("lease_seconds"),
        two_hosts("task_time_limit"),
        two_hosts("task_soft_time_limit"),
        drill_clock("MAIL_PROVIDER_CONNECT_TIMEOUT_SECONDS"),
        drill_clock("MAIL_PROVIDER_READ_TIMEOUT_SECONDS"),
        two_hosts("broker_heartbeat_seconds"),
    ),
    (
        "end a transaction left idle for {} s",
        constant("tools.drill.hosts.IDLE_IN_TRANSACTION_TIMEOUT_MS", lambda ms: number(ms / 1000)),
    ),
    ("and waited (in flight, every {} s),", IN_FLIGHT_DELAY),
    (
        "runs a short version ({} orders, lease {} s, cut {} s;",
        source_match("tests/system/test_two_hosts.py", r"orders=(\d+)"),
        source_match("tests/system/test_two_hosts.py", r"lease_seconds=(\d+)"),
        source_match("tests/system/test_two_hosts.py", r"cut_seconds=(\d+)"),
    ),
    ("- at {} % of the stream, SIGKILL the node", constant(f"{DRILL_CONFIG}.leader_kill_at", percent)),
    ("- at {} %, SIGKILL a follower of the queue", constant(f"{DRILL_CONFIG}.follower_kill_at", percent)),
    ("(polled every {} s)", constant("tools.drill.broker_cluster.LEADER_POLL_SECONDS")),
    (
        "for the orders of the {} s after the kill, beside the orders of the {} s before it",
        constant("tools.drill.broker_faults.WINDOW_SECONDS"),
        constant("tools.drill.broker_faults.WINDOW_SECONDS"),
    ),
    (
        "and no confirmed publish after {} s of waiting for one, fails the drill",
        constant("tools.drill.broker_faults.FAILOVER_TIMEOUT_SECONDS"),
    ),
    (
        "after its last order waits the whole {} s for a publish.",
        constant("tools.drill.broker_faults.FAILOVER_TIMEOUT_SECONDS"),
    ),
    (
        "(a relay takes one only when beat sends the next sweep, every {})",
        drill_clock(
            "OUTBOX_SWEEP_INTERVAL_SECONDS", lambda value: "second" if float(value) == 1 else f"{value} s"
        ),
    ),
    ("for `FAST_PATH_PAUSE_SECONDS` ({} s):", FAST_PATH_PAUSE),
    ("sleeping {} s between its tries.", computed(celery_delayed_delivery_pauses)),
)


PATRONI = "tools.drill.patroni_config"


DATABASE_FAULTS = "tools.drill.database_drill.DATABASE_FAULTS"


DATABASE_LATEST = "database-latest"


DATABASE_ASYNC = "database-async-latest"


def patroni_default(name: str) -> Figure:
    """A default of the Patroni the tools pin (its own word: patroni.config, patroni.global_config)."""

    def read() -> Any:
        if name == "primary_start_timeout":
            from patroni import global_config

            return global_config.primary_start_timeout
        from patroni.config import Config

        return Config.get_default_config()[name]

    return computed(read)


def _unsent(report: dict, kind: str) -> int:
    counts = report["verdict"]["by_kind"][kind]
    return counts["expected"] - counts["sent"]


def _by_kind(name: str, kind: str) -> tuple[Figure, ...]:
    """Expected, sent and accepted emails of a kind in a drill's committed report."""

    def column_of(column: str) -> Figure:
        return reported(name, lambda report: report["verdict"]["by_kind"][kind][column])

    return tuple(column_of(column) for column in ("expected", "sent", "accepted"))


PATRONI_CLOCKS = (
    "`ttl` {} s, `loop_wait` {} s, `retry_timeout` {} s, `primary_start_timeout` {} and `use_pg_rewind` on",
    constant(f"{PATRONI}.TTL_SECONDS"),
    constant(f"{PATRONI}.LOOP_WAIT_SECONDS"),
    constant(f"{PATRONI}.RETRY_TIMEOUT_SECONDS"),
    constant(f"{PATRONI}.PRIMARY_START_TIMEOUT_SECONDS"),
)


DATABASE_DRILL = rows(
    "docs/drills.md",
    (
        "(`tools/drill/pg_cluster.py`): {} PostgreSQL nodes managed by Patroni with one etcd,",
        default_argument("tools.drill.pg_cluster.PrivateDatabaseCluster", "size", words),
    ),
    PATRONI_CLOCKS,
    (
        "`tests/system/test_database_drill.py` runs {} orders with one crash in `make test-tools`",
        source_match("tests/system/test_database_drill.py", r"DrillConfig\(\s*orders=(\d+)"),
    ),
    (
        "- after {} % of the orders, SIGKILL the primary's PostgreSQL,",
        constant(DATABASE_FAULTS, lambda faults: percent(faults[0][0])),
    ),
    (
        "- after {} %, the same to the primary",
        constant(DATABASE_FAULTS, lambda faults: percent(faults[1][0])),
    ),
    (
        "- after {} %, SIGSTOP the primary's whole node",
        constant(DATABASE_FAULTS, lambda faults: percent(faults[2][0])),
    ),
    (
        "another node is promoted, and {} s after that",
        constant("tools.drill.database_faults.THAW_AFTER_TAKEOVER_SECONDS"),
    ),
    ("(`/cluster`, polled every {} s,", constant("tools.drill.pg_cluster.MEMBERS_POLL_SECONDS")),
    ("write once each, every {} s,", constant("tools.drill.database_fence.PROBE_EVERY_SECONDS")),
    (
        "a new primary within {} s of each fault and the old node back as a standby within {} s,",
        constant("tools.drill.database_faults.FAILOVER_TIMEOUT_SECONDS"),
        constant("tools.drill.database_faults.FAILOVER_TIMEOUT_SECONDS"),
    ),
    (
        "so they settle fast (soft {} s, hard {} s, lease {} s).",
        drill_clock("TASK_SOFT_TIME_LIMIT_SECONDS"),
        drill_clock("TASK_TIME_LIMIT_SECONDS"),
        drill_clock("NOTIFICATION_LEASE_SECONDS"),
    ),
    ("keeps the product's own (soft {} s, hard {} s, lease {} s)", SOFT_TIME_LIMIT, HARD_TIME_LIMIT, LEASE),
    (
        "`make drill DATABASE=patroni ORDERS={}` on this machine, with other work on it too (load "
        "average {} / {} / {} at the end;",
        reported(DATABASE_LATEST, lambda report: report["load"]["orders_asked"]),
        reported(DATABASE_LATEST, lambda report: report["database"]["load_average"][0]),
        reported(DATABASE_LATEST, lambda report: report["database"]["load_average"][1]),
        reported(DATABASE_LATEST, lambda report: report["database"]["load_average"][2]),
    ),
    (
        "**{}**: all {} orders placed, {} emails expected and accepted, 0 lost,",
        reported(DATABASE_LATEST, lambda report: report["outcome"]),
        reported(DATABASE_LATEST, lambda report: report["load"]["orders_placed"], thousands),
        reported(DATABASE_LATEST, lambda report: report["verdict"]["emails_accepted"], thousands),
    ),
    ("{}", database_fault_row(DATABASE_LATEST, 1)),
    ("{}", database_fault_row(DATABASE_LATEST, 2)),
    ("{}", database_fault_row(DATABASE_LATEST, 3)),
    ("The writes aimed at the thawed old primary: {}.", database_fence(DATABASE_LATEST)),
    ("the load waits {} s for an answer", source_match("tools/drill/load.py", r"timeout=(\d+)")),
    (
        "The latest run, `ORDERS={}`",
        reported(DATABASE_ASYNC, lambda report: report["load"]["orders_asked"]),
    ),
    ("**{}**.", reported(DATABASE_ASYNC, lambda report: report["outcome"])),
    ("The writes aimed at the thawed old primary: {}.", database_fence(DATABASE_ASYNC)),
    (
        "The API answered 201 for {} order the database does not have ({} orders in it, of {} placed); the "
        "provider accepted {} emails the database has no record of,",
        reported(DATABASE_ASYNC, lambda report: report["verdict"]["orders_lost_by_the_api"]),
        reported(DATABASE_ASYNC, lambda report: report["verdict"]["orders"]),
        reported(DATABASE_ASYNC, lambda report: report["load"]["orders_placed"], thousands),
        reported(DATABASE_ASYNC, lambda report: report["database"]["emails_unknown_to_the_database"]),
    ),
    (
        "but the database has {} of them `sending` (confirmations expected / sent / accepted: {} / {} / {}),",
        reported(DATABASE_ASYNC, lambda report: _unsent(report, "order_confirmation")),
        *_by_kind(DATABASE_ASYNC, "order_confirmation"),
    ),
    (
        "{} emails in all are left unfinished, the others parcels' emails `pending` (parcels expected / "
        "sent / accepted: {} / {} / {};",
        reported(DATABASE_ASYNC, lambda report: report["verdict"]["unfinished"]),
        *_by_kind(DATABASE_ASYNC, "order_shipment"),
    ),
    (
        "{} were posted and {} are stored.",
        reported(DATABASE_ASYNC, lambda report: report["delivery"]["webhook_events"], thousands),
        reported(DATABASE_ASYNC, lambda report: report["delivery"]["events_stored"], thousands),
    ),
)


CLUSTER_SIZE = default_argument("tools.drill.pg_cluster.PrivateDatabaseCluster", "size", words)


DATABASE_DEPLOY = rows(
    "docs/deploy.md",
    ("- {} PostgreSQL nodes, each with its Patroni,", CLUSTER_SIZE),
    ("(with {} nodes, one standby may be down", CLUSTER_SIZE),
    (
        "(`…{}`), reach every connection",
        source_match("tests/unit/test_database_address.py", r'"(&tcp_user_timeout=[^"]+)"'),
    ),
    ("`primary_start_timeout: 0`: Patroni's default, {} s,", patroni_default("primary_start_timeout")),
    (
        "Patroni's defaults are {} s, {} s and {} s.",
        patroni_default("ttl"),
        patroni_default("loop_wait"),
        patroni_default("retry_timeout"),
    ),
    (
        "the drill runs {} s, {} s and {} s",
        constant(f"{PATRONI}.TTL_SECONDS"),
        constant(f"{PATRONI}.LOOP_WAIT_SECONDS"),
        constant(f"{PATRONI}.RETRY_TIMEOUT_SECONDS"),
    ),
    ("{}", database_fault_row(DATABASE_LATEST, 1)),
    ("{}", database_fault_row(DATABASE_LATEST, 2)),
    ("{}", database_fault_row(DATABASE_LATEST, 3)),
    ("(`TASK_SOFT_TIME_LIMIT_SECONDS`, {} s)", SOFT_TIME_LIMIT),
)


ROWS = (
    README
    + CONTRIBUTING
    + TESTS_README
    + ARCHITECTURE
    + CELERY_AND_RABBITMQ
    + DEPLOY
    + FAILURE_HANDLING
    + OBSERVABILITY
    + OPERATIONS
    + RUNBOOK
    + EMAIL_CONTENT
    + ORDERS
    + PERSONAL_DATA
    + PLATFORMS_DOC
    + PROVIDERS_DOC
    + SECURITY
    + DRILLS
    + DATABASE_DRILL
    + DATABASE_DEPLOY
)


@pytest.mark.parametrize(("document", "phrase", "figures"), ROWS, ids=[f"{d}: {p[:60]}" for d, p, _ in ROWS])
def test_each_figure_a_document_states_is_the_codes(document, phrase, figures):
    pattern, expected = _pattern(phrase, figures)
    found = re.search(pattern, _text(document))
    assert found, f"{document} should say, with the code's figures: {expected!r}"
    for listed, figure in zip(found.groups(), [f for f in figures if isinstance(f, Names)], strict=True):
        assert sorted(re.findall(r"`([^`]+)`", listed)) == sorted(figure.read()), f"{document}: {expected!r}"


def test_a_changed_figure_is_caught_and_a_list_in_another_order_is_not():
    text = "Flower :5556, queues `b` and `a`, limit 10"
    assert not re.search(_pattern("Flower :{}", (script("bin/flower", "FLOWER_PORT"),))[0], text)
    pattern, _ = _pattern("queues {}, limit {}", (Names(lambda: ["a", "b"]), computed(lambda: 10)))
    found = re.search(pattern, text)
    assert found
    assert found.group(1) == "`b` and `a`"


def test_every_document_in_scope_has_its_rows():
    # docs/performance.md is the bench's record, its figures the measurements of dated runs;
    # docs/drills/ holds the drills' reports, written by the drills themselves.
    in_scope = {"README.md", "CONTRIBUTING.md", "tests/README.md"}
    in_scope |= {f"docs/{page.name}" for page in (REPO / "docs").glob("*.md")} - {"docs/performance.md"}
    assert in_scope == {document for document, _, _ in ROWS}


def test_a_list_of_names_is_shown_as_the_documents_write_one():
    assert backticked(["a"]) == "`a`"
    assert backticked(["a", "b", "c"]) == "`a`, `b` and `c`"


def _pattern(phrase: str, figures: tuple[Figure, ...]) -> tuple[str, str]:
    """The regular expression of a phrase with its figures in place (a list of names in any
    order: a group), and the phrase as the code's figures would have it."""
    pieces = phrase.split("{}")
    assert len(pieces) == len(figures) + 1, f"one figure for each {{}} of {phrase!r}"
    pattern, expected = re.escape(_joined(pieces[0])), pieces[0]
    for figure, piece in zip(figures, pieces[1:], strict=True):
        shown = _joined(format(figure))  # a no-break space of Babel's, say, as the words have it
        names_list = r"(`[^`]+`(?:(?:,| and|, and) `[^`]+`)*)"
        pattern += (names_list if isinstance(figure, Names) else re.escape(shown)) + re.escape(_joined(piece))
        expected += shown + piece
    return pattern, _joined(expected)


@cache
def _text(document: str) -> str:
    return _joined((REPO / document).read_text())


def _joined(text: str) -> str:
    return re.sub(r"\s+", " ", text)
