"""The product uses Celery, kombu and py-amqp only through what their documentation describes.

An upgrade of Celery must not break the guarantees in silence: every name the product imports
from these libraries, and every method or attribute its subclasses of their classes redefine,
is listed here with the page that documents it. A name not on the list fails the test, and so
does an entry nothing uses any more (the list says what the code relies on, no more).

The worker's own machinery is off limits even where a page shows it: the pool a request runs
in, the semaphore that hands out its processes, and a request's completion callbacks
(`on_accepted`, `on_success`, `on_retry`, `task_ready`) belong to Celery's worker, and a
message handled through them runs by a second path beside Celery's task path. The batches of
deliveries need none of it: the event task takes waiting messages along with kombu's
`Queue.get` (messaging/worker/companions.py).
Read from the source with `ast`; the classes are imported only to see what a base defines.
"""

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path

from tests.unit.test_code_shape import PRODUCT_PACKAGES, REPO

LIBRARIES = ("celery", "kombu", "billiard", "amqp", "vine")

CELERY = "https://docs.celeryq.dev/en/stable/"
KOMBU = "https://docs.celeryq.dev/projects/kombu/en/stable/"
AMQP = "https://docs.celeryq.dev/projects/amqp/en/stable/"

# "module:name" for `from module import name`, "module" for `import module`.
DOCUMENTED_IMPORTS = {
    "celery:Celery": CELERY + "reference/celery.html#celery.Celery",
    "celery:Task": CELERY + "reference/celery.app.task.html#celery.app.task.Task",
    "celery:shared_task": CELERY + "reference/celery.html#celery.shared_task",
    "celery:current_app": CELERY + "reference/celery.html#celery.current_app",
    "celery:signals": CELERY + "userguide/signals.html",
    "celery:states": CELERY + "reference/celery.states.html",
    "celery.app.task:Context": CELERY + "userguide/tasks.html#task-request (the request of `Task.request`)",
    "celery.beat:PersistentScheduler": CELERY + "reference/celery.beat.html#celery.beat.PersistentScheduler",
    "celery.exceptions:Reject": CELERY + "userguide/tasks.html#reject",
    "celery.exceptions:Retry": CELERY + "reference/celery.exceptions.html#celery.exceptions.Retry",
    "celery.exceptions:SoftTimeLimitExceeded": CELERY + "userguide/workers.html#time-limits",
    "celery.schedules:crontab": CELERY + "userguide/periodic-tasks.html#crontab-schedules",
    "celery.worker.consumer:Consumer": CELERY
    + "reference/celery.worker.consumer.consumer.html (the `worker_consumer` setting names it)",
    "celery.worker.request:Request": CELERY + "userguide/tasks.html#requests-and-custom-requests",
    "kombu:Connection": KOMBU + "reference/kombu.html#connection",
    "kombu:Exchange": KOMBU + "reference/kombu.html#exchange",
    "kombu:Queue": KOMBU + "reference/kombu.html#queue",
    "kombu:binding": KOMBU + "reference/kombu.html#kombu.binding",
    "kombu.exceptions:ContentDisallowed": KOMBU + "reference/kombu.exceptions.html",
    "kombu.exceptions:DecodeError": KOMBU + "reference/kombu.exceptions.html",
    "kombu.exceptions:OperationalError": KOMBU + "reference/kombu.exceptions.html",
    "kombu.message:Message": KOMBU + "reference/kombu.message.html",
    "kombu.serialization:dumps": KOMBU + "reference/kombu.serialization.html",
    "kombu.transport:pyamqp": KOMBU + "reference/kombu.transport.pyamqp.html",
    "kombu.transport.native_delayed_delivery:bind_queue_to_native_delayed_delivery_exchange": KOMBU
    + "reference/kombu.transport.native_delayed_delivery.html",
    "kombu.transport.native_delayed_delivery:declare_native_delayed_delivery_exchanges_and_queues": KOMBU
    + "reference/kombu.transport.native_delayed_delivery.html",
    "kombu.transport.native_delayed_delivery:level_name": KOMBU
    + "reference/kombu.transport.native_delayed_delivery.html",
    "amqp": AMQP + "reference/amqp.connection.html, amqp.channel.html, amqp.basic_message.html",
    "amqp.exceptions:AMQPError": AMQP + "reference/amqp.exceptions.html",
    "amqp.exceptions:MessageNacked": AMQP + "reference/amqp.exceptions.html",
}

# "Base.name" for each method or class attribute a product class redefines on a base of these
# libraries (names the base does not have are the product's own, and not listed).
DOCUMENTED_OVERRIDES = {
    "Task.retry": CELERY + "reference/celery.app.task.html#celery.app.task.Task.retry",
    "Request.on_failure": CELERY + "userguide/tasks.html#requests-and-custom-requests",
    "Request.reject": CELERY + "reference/celery.worker.request.html#celery.worker.request.Request.reject",
    "Request.maybe_expire": CELERY
    + "reference/celery.worker.request.html#celery.worker.request.Request.maybe_expire",
    "Consumer.__init__": CELERY
    + "reference/celery.worker.consumer.consumer.html (its connection_errors: "
    + KOMBU
    + "reference/kombu.html#kombu.Connection.connection_errors)",
    "Consumer.on_connection_error_after_connected": CELERY
    + "reference/celery.worker.consumer.consumer.html (its cancelling of running tasks is the "
    + "worker_cancel_long_running_tasks_on_connection_loss setting, userguide/configuration.html)",
    "Consumer.connection_for_write": CELERY + "reference/celery.worker.consumer.consumer.html",
    "Consumer.create_task_handler": CELERY
    + "reference/celery.worker.consumer.consumer.html (Consumer.create_task_handler)",
    "Consumer.on_decode_error": CELERY + "reference/celery.worker.consumer.consumer.html",
    "Consumer.on_unknown_message": CELERY + "reference/celery.worker.consumer.consumer.html",
    "Consumer.on_unknown_task": CELERY + "reference/celery.worker.consumer.consumer.html",
    "Consumer.on_invalid_task": CELERY + "reference/celery.worker.consumer.consumer.html",
    "Consumer.Blueprint": CELERY + "reference/celery.worker.consumer.consumer.html",
    "Blueprint.default_steps": CELERY + "reference/celery.bootsteps.html#celery.bootsteps.Blueprint",
    "PersistentScheduler.__init__": CELERY + "reference/celery.beat.html#celery.beat.PersistentScheduler",
    "PersistentScheduler.tick": CELERY + "reference/celery.beat.html#celery.beat.Scheduler.tick",
    "PersistentScheduler.close": CELERY + "reference/celery.beat.html#celery.beat.PersistentScheduler.close",
}

# The worker's machinery: reached from the product, a message would be run, acked or counted
# by a second runner beside Celery's task path.
WORKER_INTERNALS = {
    "controller",
    "semaphore",
    "on_accepted",
    "on_success",
    "on_retry",
    "task_ready",
    "request_dict",
    "accept_callback",
    "error_callback",
    "soft_timeout",
}

# Uses outside the documented surfaces that are known and waiting to go: none. A use that is
# gone fails the test too, so the list only shrinks.
KNOWN_UNDOCUMENTED: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Use:
    path: str
    line: int
    name: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.name}"


def _library(module: str) -> bool:
    return module.split(".")[0] in LIBRARIES


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name → "module:name" (or "module") for every import from the libraries."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module and _library(node.module):
            names |= {alias.asname or alias.name: f"{node.module}:{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {
                alias.asname or alias.name.split(".")[0]: alias.name
                for alias in node.names
                if _library(alias.name)
            }
    return names


def _resolve(expression: ast.expr, imports: dict[str, str]) -> object | None:
    """The library object an expression (`Consumer`, `Consumer.Blueprint`) names, if any."""
    attributes: list[str] = []
    while isinstance(expression, ast.Attribute):
        attributes.insert(0, expression.attr)
        expression = expression.value
    if not isinstance(expression, ast.Name) or expression.id not in imports:
        return None
    module, _, name = imports[expression.id].partition(":")
    found: object = importlib.import_module(module)
    if name:
        found = getattr(found, name, None) or importlib.import_module(f"{module}.{name}")  # a submodule
    for attribute in attributes:
        found = getattr(found, attribute)
    return found


def _redefined(node: ast.ClassDef) -> list[tuple[str, int]]:
    names = []
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append((statement.name, statement.lineno))
        elif isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names += [(target.id, statement.lineno) for target in targets if isinstance(target, ast.Name)]
    return names


def surfaces(source: str, path: str = "<snippet>") -> tuple[list[Use], list[Use], list[Use]]:
    """(imports, redefinitions of a base's names, reaches into the worker's machinery)."""
    tree = ast.parse(source)
    imports = _imports(tree)
    imported = [
        Use(path, node.lineno, imports[alias.asname or alias.name.split(".")[0]])
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0)
        for alias in node.names
        if (alias.asname or alias.name.split(".")[0]) in imports
        and _library(getattr(node, "module", None) or alias.name)
    ]
    redefined = []
    internals = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                base_object = _resolve(base, imports)
                if isinstance(base_object, type):
                    redefined += [
                        Use(path, line, f"{base_object.__name__}.{name}")
                        for name, line in _redefined(node)
                        if hasattr(base_object, name)
                    ]
        elif isinstance(node, ast.Attribute) and node.attr in WORKER_INTERNALS:
            internals.append(Use(path, node.lineno, node.attr))
        elif isinstance(node, ast.keyword) and node.arg in WORKER_INTERNALS:
            internals.append(Use(path, getattr(node, "lineno", 0), node.arg))
        elif isinstance(node, ast.alias) and node.name in WORKER_INTERNALS:
            internals.append(Use(path, getattr(node, "lineno", 0), node.name))
    return imported, redefined, internals


def _product_modules() -> list[Path]:
    return sorted(path for package in PRODUCT_PACKAGES for path in (REPO / package).rglob("*.py"))


def _product_surfaces() -> tuple[list[Use], list[Use], list[Use]]:
    imported, redefined, internals = [], [], []
    for path in _product_modules():
        found = surfaces(path.read_text(), str(path.relative_to(REPO)))
        imported += found[0]
        redefined += found[1]
        internals += found[2]
    return imported, redefined, internals


def test_a_batch_runner_beside_celerys_would_be_found():
    """What the worker looked like with a second runner (a batch handed to the pool by hand)."""
    source = (
        "from celery.worker.request import Request\n"
        "from celery.worker.state import task_ready\n"
        "from billiard.einfo import ExceptionInfo\n"
        "class R(Request):\n"
        "    def _announce_revoked(self, *a):\n"
        "        return None\n"
        "def submit(consumer, batch):\n"
        "    consumer.controller.semaphore.acquire(lambda: None)\n"
        "    consumer.pool.apply_async(run, accept_callback=batch[0].on_accepted, soft_timeout=1)\n"
        "    batch[0].on_success((False, 'sent', 0.1))\n"
        "    task_ready(batch[0])\n"
    )
    imported, redefined, internals = surfaces(source)
    assert [use.name for use in imported] == [
        "celery.worker.request:Request",
        "celery.worker.state:task_ready",
        "billiard.einfo:ExceptionInfo",
    ]
    assert [use.name for use in redefined] == ["Request._announce_revoked"]
    assert sorted({use.name for use in internals}) == [
        "accept_callback",
        "controller",
        "on_accepted",
        "on_success",
        "semaphore",
        "soft_timeout",
        "task_ready",
    ]


def _known(use: Use) -> bool:
    return (use.path, use.name) in KNOWN_UNDOCUMENTED


def test_every_library_name_the_product_uses_is_documented():
    imported, redefined, _ = _product_surfaces()
    assert len(imported) > 20  # a scan that found nothing would pass whatever the code does
    undocumented = [
        str(use)
        for uses, documented in ((imported, DOCUMENTED_IMPORTS), (redefined, DOCUMENTED_OVERRIDES))
        for use in uses
        if use.name not in documented and not _known(use)
    ]
    assert not undocumented, "not on the documented list (find its page, or use one that is):\n" + "\n".join(
        undocumented
    )
    unused = set(DOCUMENTED_IMPORTS) - {use.name for use in imported}
    unused |= set(DOCUMENTED_OVERRIDES) - {use.name for use in redefined}
    assert not unused, f"no longer used, remove from the lists: {sorted(unused)}"


def test_nothing_reaches_into_the_workers_pool_or_a_requests_callbacks():
    _, _, internals = _product_surfaces()
    reached = [str(use) for use in internals if not _known(use)]
    assert not reached, "the worker's machinery, reached from the product:\n" + "\n".join(reached)


def test_the_known_undocumented_uses_are_all_still_there():
    imported, redefined, internals = _product_surfaces()
    found = {(use.path, use.name) for use in [*imported, *redefined, *internals]}
    assert not KNOWN_UNDOCUMENTED - found, f"no longer used: {sorted(KNOWN_UNDOCUMENTED - found)}"


def test_the_delayed_delivery_step_left_out_is_still_celerys_name_for_it():
    """The consumer leaves Celery's delayed-delivery step out by the name Celery's blueprint
    lists it under; a release that renames it must fail here, not bring the step back."""
    from celery.worker.consumer import Consumer

    from messaging.worker.consumer import DELAYED_DELIVERY_STEP, DeadLetteringConsumer

    assert DELAYED_DELIVERY_STEP in Consumer.Blueprint.default_steps
    assert DELAYED_DELIVERY_STEP not in DeadLetteringConsumer.Blueprint.default_steps
    assert len(DeadLetteringConsumer.Blueprint.default_steps) == len(Consumer.Blueprint.default_steps) - 1
