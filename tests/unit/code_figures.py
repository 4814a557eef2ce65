"""Figures read from the code, for tests/unit/test_doc_figures.py: a setting's default, a
module's constant, a Makefile default or recipe, a process script's default, a manifest's
replicas, a literal of a tool or a test. Each is a `Figure`, read when the test formats it, and
shown the way the documents write it (5, 1,000, six, 24 h, 03:17).

A setting's default is what a process gets with no variable set: the settings are read in a
fresh interpreter whose environment holds none of ours and which skips a local `.env`, so
neither the test run's variables nor a developer's overrides stand in for the code's value.
"""

import ast
import importlib
import inspect
import os
import pickle
import re
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
Show = Callable[[Any], str]  # how a document writes a figure

_READ_SETTINGS = """
import os, pickle, sys
import environ
environ.Env.read_env = classmethod(lambda cls, *args, **kwargs: None)  # no .env: the defaults
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings.base"
from django.conf import settings
values = {}
for name in dir(settings):
    if name.isupper():
        try:
            values[name] = pickle.dumps(getattr(settings, name))
        except Exception:
            pass  # a value that cannot cross the process boundary is no figure of a document
sys.stdout.buffer.write(pickle.dumps(values))
"""

# A production deployment's required keys, long enough for config/settings/safety.py.
_LONG_ENOUGH = "k" * 64
_PRODUCTION = {
    "DJANGO_ENV": "production",
    "DJANGO_SECRET_KEY": _LONG_ENOUGH,
    "PERSONAL_DATA_HASH_KEY": _LONG_ENOUGH,
}


@cache
def _settings(production: bool) -> dict[str, Any]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/")}
    read = subprocess.run(
        [sys.executable, "-c", _READ_SETTINGS],
        cwd=REPO,
        env=env | (_PRODUCTION if production else {}),
        capture_output=True,
        check=True,
    )
    return {name: pickle.loads(value) for name, value in pickle.loads(read.stdout).items()}


class Figure:
    """A value of the code, read and shown (`show`) only when the test formats its phrase."""

    def __init__(self, read: Callable[[], Any], show: Show = str) -> None:
        self.read, self.show = read, show

    def __format__(self, spec: str) -> str:
        return self.show(self.read())


def setting(name: str, show: Show | None = None, *, production: bool = False) -> Figure:
    """The default of a Django setting (of the production profile where `production`)."""
    return Figure(lambda: _settings(production)[name], show or number)


def constant(dotted: str, show: Show | None = None) -> Figure:
    """A name of ours, `package.module.NAME` (or `package.module.NAME.attribute`)."""

    def read() -> Any:
        parts = dotted.split(".")
        for split in range(len(parts) - 1, 0, -1):
            try:
                value: Any = importlib.import_module(".".join(parts[:split]))
            except ModuleNotFoundError:
                continue
            for part in parts[split:]:
                value = getattr(value, part)
            return value
        raise ModuleNotFoundError(dotted)

    return Figure(read, show or number)


def computed(read: Callable[[], Any], show: Show | None = None) -> Figure:
    return Figure(read, show or number)


class Names(Figure):
    """Names a document lists as backticked words in any order (`a`, `b` and `c`): the test
    compares the listed set with the code's."""

    def __init__(self, read: Callable[[], list[str]]) -> None:
        super().__init__(read, backticked)


def beat_job(job: str, show: Show) -> Figure:
    """A periodic job's schedule (settings' CELERY_BEAT_SCHEDULE)."""
    return Figure(lambda: _settings(False)["CELERY_BEAT_SCHEDULE"][job]["schedule"], show)


def at_time_of_day(schedule: Any) -> str:
    """A daily crontab as 03:17."""
    (hour,), (minute,) = schedule.hour, schedule.minute
    assert len(schedule.day_of_week) == 7, "a daily job"
    return f"{hour:02}:{minute:02}"


def hourly(schedule: Any) -> str:
    """The word for a crontab that runs every hour of every day."""
    every_hour = len(schedule.hour) == 24 and len(schedule.day_of_week) == 7
    return "hourly" if every_hour else f"not hourly: {schedule}"


def hourly_at_minute(schedule: Any) -> str:
    """An hourly crontab as its minute."""
    assert len(schedule.hour) == 24, "an hourly job"
    (minute,) = schedule.minute
    return str(minute)


# --- Files of ours read as text, signatures, pins ---------------------------------------


def source_match(path: str, pattern: str, show: Show | None = None) -> Figure:
    """The first group of `pattern` in a file of ours (a test's own sizes, a tool's settings)."""

    def read() -> str:
        found = re.search(pattern, (REPO / path).read_text())
        assert found, f"{path}: {pattern}"
        return found.group(1)

    return Figure(read, show or str)


def source_literal(path: str, name: str, show: Show | None = None) -> Figure:
    """A literal a file of ours assigns at its top level (`NAME = 300`; of a dict, its number of
    keys), read without importing the file."""

    def read() -> Any:
        tree = ast.parse((REPO / path).read_text())
        [value] = [
            node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            and any(getattr(target, "id", None) == name for target in node.targets)
        ]
        return len(value.keys) if isinstance(value, ast.Dict) else ast.literal_eval(value)

    return Figure(read, show or number)


def module_constants(path: str) -> dict[str, Any]:
    """A file's top-level upper-case constants, evaluated as the module evaluates them (`BATCH
    + 4`, `A, B = 1, 2`), without importing it (the bench's modules need the naive pipeline's
    Django app). A constant made of imported names is left out."""
    tree = ast.parse((REPO / path).read_text())
    values: dict[str, Any] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        targets = node.targets[0].elts if isinstance(node.targets[0], ast.Tuple) else node.targets
        names = [target.id for target in targets if isinstance(target, ast.Name)]
        if names and all(name.isupper() for name in names):
            try:
                value = eval(compile(ast.Expression(node.value), path, "eval"), {}, dict(values))
            except NameError:  # made of imported names (a TypeVar): not a figure
                continue
            values |= dict(zip(names, value, strict=True)) if len(names) > 1 else {names[0]: value}
    return values


def default_argument(function: str, parameter: str, show: Show | None = None) -> Figure:
    """The default of a function's parameter (`package.module.function`)."""
    return Figure(
        lambda: inspect.signature(constant(function).read()).parameters[parameter].default, show or number
    )


def pinned(package: str) -> Figure:
    """The major and minor version requirements.txt pins (`celery==5.7.0`: 5.7)."""

    def read() -> str:
        pin = re.search(rf"^{package}==(\d+\.\d+)", (REPO / "requirements.txt").read_text(), re.MULTILINE)
        assert pin, f"requirements.txt pins {package}"
        return pin.group(1)

    return Figure(read)


def field_max_length(model: str, field: str) -> Figure:
    """A model field's max_length (`package.models.Model`)."""
    return Figure(lambda: constant(model).read()._meta.get_field(field).max_length)


# --- The Makefile and the process scripts ------------------------------------------------


def makefile_default(variable: str, show: Show | None = None) -> Figure:
    """`VARIABLE ?= value` of the Makefile (a `$(if …,a,b)` default: its last branch, the
    value of a run without PYTEST_ARGS)."""

    def read() -> str:
        found = re.search(rf"^{variable} \?= (.+)$", _makefile(), re.MULTILINE)
        assert found, f"the Makefile sets no default for {variable}"
        value = found.group(1).strip()
        branches = re.fullmatch(r"\$\(if [^,]+,([^,]*),([^,)]*)\)", value)
        return branches.group(2) if branches else value

    return Figure(read, show or str)


def makefile_recipe(target: str) -> list[str]:
    """The commands of a Makefile target, with `$(BIN)/` left out and continuation lines joined."""
    found = re.search(rf"^{re.escape(target)}:[^\n]*\n((?:\t[^\n]*\n)+)", _makefile(), re.MULTILINE)
    assert found, f"the Makefile has no target {target}"
    recipe = found.group(1).replace("\\\n\t", " ")
    return [" ".join(line.replace("$(BIN)/", "").split()) for line in recipe.splitlines()]


def makefile_target_variable(target: str, variable: str) -> Figure:
    """A target-specific `target: VARIABLE = value` of the Makefile."""

    def read() -> str:
        found = re.search(rf"^{re.escape(target)}: {variable} = (.+)$", _makefile(), re.MULTILINE)
        assert found, f"the Makefile sets no {variable} for {target}"
        return found.group(1).strip()

    return Figure(read)


def script_default(script: str, variable: str, show: Show | None = None) -> Figure:
    """The `${VARIABLE:-default}` a process script (bin/web, tools/bin/mailsim, …) falls back on."""

    def read() -> str:
        found = re.search(rf"\$\{{{variable}:-([^}}]*)\}}", (REPO / script).read_text())
        assert found, f"{script} has no default for {variable}"
        return found.group(1)

    return Figure(read, show or str)


def _makefile() -> str:
    return (REPO / "Makefile").read_text()


# --- How the documents write figures -----------------------------------------------------

_WORDS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen"),
    *("nineteen", "twenty"),
]


def number(value: Any) -> str:
    """5.0 as 5, 0.5 as 0.5, anything else as it prints."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def thousands(value: float) -> str:
    """1000 as 1,000."""
    return f"{value:,}".removesuffix(".0")


def words(value: int | str) -> str:
    """6 as six (up to twenty)."""
    return _WORDS[int(value)]


def seconds(span: timedelta | float) -> str:
    return number(span.total_seconds() if isinstance(span, timedelta) else float(span))


def minutes(span: timedelta | float) -> str:
    return number((span.total_seconds() if isinstance(span, timedelta) else float(span)) / 60)


def hours(span: timedelta | float) -> str:
    return number((span.total_seconds() if isinstance(span, timedelta) else float(span)) / 3600)


def days(span: timedelta | float) -> str:
    return number((span.total_seconds() if isinstance(span, timedelta) else float(span)) / 86400)


def backticked(names: list[str]) -> str:
    """['a', 'b', 'c'] as `a`, `b` and `c`."""
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


# --- Figures of particular pages ------------------------------------------------------------


def currency_decimals(code: str) -> int:
    from babel.numbers import get_currency_precision

    return get_currency_precision(code)


def database_url() -> str:
    database = setting("DATABASES").read()["default"]
    return f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"


def work_queues() -> list[str]:
    from messaging.registry import work_queue_names

    return work_queue_names()


def ensure_services_asks_for(service: str) -> Figure:
    """The version scripts/ensure-services.sh asks to install ("PostgreSQL 15 and RabbitMQ 3.10 or newer")."""
    return source_match("scripts/ensure-services.sh", rf"{service} ([\d.]+) (?:and|or newer)")


def pytest_durations() -> Figure:
    """How many of the slowest tests every run lists (pyproject's `--durations`)."""
    return source_match("pyproject.toml", r"--durations=(\d+)")


def publish_backoff(attempt: int, show=seconds) -> Figure:
    """The relay's wait before the next try of a row whose publish failed `attempt` times."""
    return computed(lambda: constant("messaging.relay.claims.publish_backoff").read()(attempt), show)


def event_type_default(field: str, show) -> Figure:
    """An EventType's default retry budget or longest pause (messaging/registry.py)."""
    return computed(
        lambda: constant("messaging.registry.EventType").read().__dataclass_fields__[field].default, show
    )


def event_type_names() -> list[str]:
    from messaging.registry import event_types

    return list(event_types())


def hour_or_hours(span) -> str:
    return f"{hours(span)} hour" + "s" * (span.total_seconds() != 3600)


def an_hour_or_more(span) -> str:
    return "an hour" if span.total_seconds() == 3600 else f"{hours(span)} hours"


def celery_delayed_delivery_pauses() -> str:
    """The pauses between the tries of Celery's delayed-delivery step on a node that is down."""
    import inspect

    from celery.worker.consumer import delayed_delivery
    from kombu.utils.functional import retry_over_time

    step = inspect.signature(retry_over_time).parameters["interval_step"].default
    first, tries = delayed_delivery.RETRY_INTERVAL, delayed_delivery.MAX_RETRIES  # type: ignore[attr-defined]  # celery-types leaves the module's constants out
    pauses = [number(first + n * step) for n in range(tries)]
    return f"{', '.join(pauses[:-1])} and {pauses[-1]}"


def manifest(kind: str, name: str) -> dict:
    """A document of the example Kubernetes manifests (deploy/kubernetes/), by kind and name."""
    from tests.deployment_files import kubernetes_documents

    [found] = [
        doc for doc in kubernetes_documents() if doc["kind"] == kind and doc["metadata"]["name"] == name
    ]
    return found


def replicas(component: str, show=number) -> Figure:
    """How many pods of a component the example manifests run."""
    return computed(lambda: manifest("Deployment", f"orders-{component}")["spec"]["replicas"], show)


def bench_latest() -> dict:
    import json

    return json.loads((REPO / "tools/bench/results/bench-latest.json").read_text())


def bench_scaling(workers: int, relays: int) -> Figure:
    """The committed bench's end-to-end orders/s (median) with this many worker and relay processes."""

    def read() -> int:
        [found] = [
            configuration["orders_per_s"]["median"]
            for configuration in bench_latest()["scaling"]["configurations"]
            if (configuration["worker_processes"], configuration["relay_processes"]) == (workers, relays)
        ]
        return round(found)

    return computed(read)


def key_window(provider: str, show) -> Figure:
    """How long a provider remembers an idempotency key (its capabilities)."""
    return constant(f"notifications.providers.{provider}Provider.capabilities.key_window", show)


def drill_clock(variable: str, show=number) -> Figure:
    """A setting the fault drill's stack sets for its processes (tools/drill/stack.py)."""
    return source_match("tools/drill/stack.py", rf'"{variable}": "([^"]+)"', show)


def event_type(name: str) -> Any:
    from messaging.registry import event_types

    return event_types()[name]


def event_type_field(name: str, field: str, show: Show | None = None) -> Figure:
    """A field of a registered event type: its queue, its retry budget, its longest pause."""
    return Figure(lambda: getattr(event_type(name), field), show or str)


def email_tries_in_a_budget() -> int:
    """The attempts an email gets in its budget, the first and every retry, without jitter."""
    budget = constant("notifications.events.EMAIL_RETRY_BUDGET").read().total_seconds()
    longest = constant("notifications.events.EMAIL_RETRY_MAX_DELAY").read().total_seconds()
    base = setting("DELIVERY_RETRY_BASE_DELAY_SECONDS").read()
    tries, waited = 1, 0.0
    while waited + (delay := min(longest, base * 2 ** (tries - 1))) <= budget:
        tries, waited = tries + 1, waited + delay
    return tries


def alert_threshold(alert: str, pattern: str, show=number) -> Figure:
    """A figure of an alert's expression in deploy/prometheus/alerts.yml (the first group of `pattern`)."""
    import yaml

    def read() -> str:
        groups = yaml.safe_load((REPO / "deploy/prometheus/alerts.yml").read_text())["groups"]
        [rule] = [rule for group in groups for rule in group["rules"] if rule["alert"] == alert]
        found = re.search(pattern, rule["expr"])
        assert found, f"{alert}: {pattern} in {rule['expr']}"
        return found.group(1)

    return computed(read, show)


def svix_tolerance_minutes() -> int:
    """How far a Resend (Svix) webhook's timestamp may be off before the signature check refuses
    it: the first whole minute past which a correctly signed request is refused."""
    import base64
    from datetime import UTC, datetime, timedelta

    from svix.webhooks import Webhook, WebhookVerificationError

    webhook = Webhook("whsec_" + base64.b64encode(b"a test key of twenty-four").decode())

    def accepted(off: timedelta) -> bool:
        sent = datetime.now(UTC) - off
        headers = {"svix-id": "msg_1", "svix-timestamp": str(int(sent.timestamp()))}
        try:
            webhook.verify("{}", headers | {"svix-signature": webhook.sign("msg_1", sent, "{}")})
        except WebhookVerificationError:
            return False
        return True

    return next(minute for minute in range(1, 60) if not accepted(timedelta(minutes=minute, seconds=5)))


def a_day(span) -> str:
    return "a day" if span.total_seconds() == 86400 else f"{hours(span)} hours"


def celery_backend_cleanup_schedule():
    """When Celery's beat runs its result clean-up, which it adds itself while results expire
    and the backend cannot expire them (django-celery-results' cannot)."""
    from types import SimpleNamespace

    from celery.beat import Scheduler

    class Beat:
        app = SimpleNamespace(
            conf=SimpleNamespace(result_expires=1), backend=SimpleNamespace(supports_autoexpire=False)
        )
        entries: dict = {}

        def update_from_dict(self, entries: dict) -> None:
            self.entries = entries

    beat = Beat()
    Scheduler.install_default_entries(beat, {})  # type: ignore[arg-type]  # what it reads of a scheduler
    return beat.entries["celery.backend_cleanup"]["schedule"]


def short_order_number_length() -> int:
    """How much of its id an order placed with the short body (no number) is known by."""
    import uuid
    from types import SimpleNamespace

    order_number = constant("notifications.content.context.order_number").read()
    return len(order_number(SimpleNamespace(number=None, id=uuid.uuid4())))


def secret_hint_length() -> int:
    """How much of a shop's secret its pages show (the last characters, after an ellipsis)."""
    forty_characters = "x" * 40
    shop = constant("shops.models.Shop").read()(webhook_secret=forty_characters)
    return len(shop.secret_hint.removeprefix("…"))


def import_linter_contracts() -> list[dict]:
    import tomllib

    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def money(amount: str, currency: str, locale: str) -> Figure:
    """An amount as the emails show it (notifications/content/formatting.py)."""
    from decimal import Decimal

    return computed(
        lambda: constant("notifications.content.formatting.money_format").read()(
            Decimal(amount), currency, locale
        ),
        str,
    )


def placed_on(locale: str) -> Figure:
    """December 1, 2026 as the emails show it."""
    from datetime import date

    return computed(
        lambda: constant("notifications.content.formatting.date_format").read()(date(2026, 12, 1), locale),
        str,
    )


def a_twentieth(share: float) -> str:
    return "a twentieth" if share == 0.05 else str(share)


def mebibytes(size: int) -> str:
    return number(size / 1024 / 1024)


def megabytes(size: int) -> str:
    """A provider's "MB": 10^6 bytes (notifications/providers/attachments.py MB)."""
    return number(size / 1000 / 1000)


def hours_of(dotted: str) -> Figure:
    return constant(dotted, hours)


def percent(share: float) -> str:
    return number(round(share * 100, 6))


def share_in_words(share: float) -> str:
    return {0.5: "half", 0.2: "a fifth", 0.25: "a quarter"}.get(share, f"{percent(share)} %")


def provider_fault(kind: str) -> Figure:
    """The share of sends the fault drill's provider answers with this fault (tools/drill/chaos.py)."""
    return computed(
        lambda: next(
            fault["rate"]
            for fault in constant("tools.drill.chaos.PROVIDER_FAULTS").read()
            if fault["kind"] == kind
        ),
        percent,
    )


def outage_config(field: str, show=number) -> Figure:
    return computed(lambda: getattr(constant("tools.drill.outage.OutageConfig").read()(), field), show)


def outage_bound_parts() -> list[str]:
    """The outage drill's bound on calls during ten minutes: its parts and its sum."""
    from tools.drill.outage import OutageConfig
    from tools.drill.outage_verdict import outage_request_bound

    config = OutageConfig()
    sizes = config.sizes()
    probes = int(config.outage_seconds // sizes.open_seconds) + 1
    parts = [sizes.failures - 1, sizes.workers, sizes.concurrency, sizes.batch_size, probes]
    return [*map(str, parts), str(outage_request_bound(config.outage_seconds, sizes))]


def outage_bound(part: int) -> Figure:
    return computed(lambda: outage_bound_parts()[part], str)


def rate_bound(window: float, *, travel: bool) -> Figure:
    from tools.drill.outage_verdict import rate_window_bound

    rate = constant("tools.drill.outage.OutageConfig").read()().mail_rate_limit
    return computed(lambda: rate_window_bound(rate, window) if travel else rate_window_bound(rate, window, 0))


def two_hosts(field: str, show=number) -> Figure:
    return computed(lambda: getattr(constant("tools.drill.two_hosts.TwoHostConfig").read()(), field), show)


def seconds_in_words(value: float) -> str:
    return {1.0: "a second", 0.5: "half a second", 60.0: "a minute"}.get(float(value), f"{number(value)} s")


def restore_queued_at_stop(orders: int) -> int:
    """The orders the restore drill places while its workers are stopped, of `orders` in all."""
    return constant("tools.drill.restore.RestoreConfig").read()(orders=orders).tail_orders


def drill_report(name: str) -> dict:
    """A drill's committed report (docs/drills/drill-<name>.json), as the drill wrote it."""
    import json

    return json.loads((REPO / f"docs/drills/drill-{name}.json").read_text())


def reported(name: str, read: Callable[[dict], Any], show: Show | None = None) -> Figure:
    """A figure of a drill's committed report: a document stating a run's measurement states
    the report's, and a new run's report fails the test until the document follows it."""
    return computed(lambda: read(drill_report(name)), show)


def restore_report(name: str = "restore-latest") -> dict:
    """The restore drill's committed report (docs/drills/<name>.json): restore-latest, or its
    counter-proof's, restore-skip-void-latest."""
    import json

    return json.loads((REPO / f"docs/drills/{name}.json").read_text())


def restore_reported(
    read: Callable[[dict], Any], show: Show | None = None, name: str = "restore-latest"
) -> Figure:
    """A figure of the restore drill's committed report (`name`), as reported() for the others."""
    return computed(lambda: read(restore_report(name)), show)


def restore_step(report: dict, starts: str) -> dict:
    """The report's step whose name starts with `starts` (the first, in the drill's order)."""
    return next(row for row in report["steps"] if row["step"].strip().startswith(starts))


def restore_series(report: dict) -> dict:
    """The invoice numbers of the drill's one series (every order is its one API client's)."""
    [series] = report["numbers"]["series"].values()
    return series


def database_fault(name: str, number: int, key: str, show: Show | None = None) -> Figure:
    """A measurement of the database drill's fault `number` (1, 2, ...) in its committed report."""
    return reported(name, lambda report: report["chaos"]["database_faults"][number - 1][key], show)


def database_fault_row(name: str, fault_number: int) -> Figure:
    """A row of the docs' failover tables: the database drill's fault `fault_number` as its committed
    report has it (what, the orders placed before it; new primary; first order on it; first
    email of such an order; the answers retried in the gap; the old primary back, pg_rewind)."""

    def read() -> str:
        fault = drill_report(name)["chaos"]["database_faults"][fault_number - 1]
        node = fault["node"]
        what = (
            f"{node}'s PostgreSQL killed"
            if fault["kind"] == "crash"
            else f"{node} frozen, thawed after {number(fault['seconds_frozen'])} s"
        )
        answers = ", ".join(f"{status}: {n}" for status, n in fault["answers_in_gap"].items()) or "none"
        cells = [
            f"{what} ({fault['orders_placed_before']})",
            f"{fault['new_primary']} after {number(fault['seconds_to_new_primary'])} s",
            f"{number(fault['seconds_to_first_commit'])} s",
            f"{number(fault['seconds_to_first_email'])} s",
            answers,
            f"after {number(fault['seconds_to_rejoin'])} s ({fault['rewound']})",
        ]
        return "| " + " | ".join(cells) + " |"

    return Figure(read, str)


def database_fence(name: str) -> Figure:
    """The writes aimed at the database drill's thawed old primary, as its report words them."""
    from tools.drill.database_report import fence_text

    return reported(
        name,
        lambda report: next(f["fence"] for f in report["chaos"]["database_faults"] if f["fence"]),
        fence_text,
    )
