"""The one check of what a task message may hold, used by the worker's consumer and by a batch
taking messages along (messaging/worker/failures.py), and the reasons given for failures that
end a delivery: pure rules, no service."""

import uuid
from types import SimpleNamespace

import pytest
from django.db import InterfaceError, OperationalError, ProgrammingError

from messaging.dead_lettering import dead_letter_count_of
from messaging.worker.failures import failure_reason, task_body_problem, task_headers_problem

GOOD_HEADERS = {
    "lang": "py",
    "task": "messaging.handle_event",
    "id": str(uuid.uuid4()),
    "shadow": None,
    "eta": None,
    "expires": None,
    "group": None,
    "group_index": None,
    "retries": 0,
    "timelimit": [None, None],
    "root_id": str(uuid.uuid4()),
    "parent_id": None,
    "argsrepr": "({...},)",
    "kwargsrepr": "{}",
    "origin": "gen1@host",
    "ignore_result": False,
}
# The worker's tasks as the check sees them: the event task has the worker's limits, the
# retention job declares its own (Celery writes them into its messages).
TASKS = {
    "messaging.handle_event": SimpleNamespace(time_limit=None),
    "messaging.retention": SimpleNamespace(time_limit=1900),
}
GOOD_BODY = [[{"event_id": "x"}], {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}]


def test_the_headers_and_body_the_relay_writes_pass():
    assert task_headers_problem(GOOD_HEADERS, tasks=TASKS) is None
    assert (
        task_headers_problem({**GOOD_HEADERS, "eta": "2026-12-05T12:00:00+00:00", "retries": 3}, tasks=TASKS)
        is None
    )
    assert task_headers_problem({**GOOD_HEADERS, "timelimit": [75, 60.5]}, tasks=TASKS) is None
    assert (
        task_headers_problem(
            {**GOOD_HEADERS, "headers": {"x-retry-since": "2026-12-05T12:00:00+00:00"}}, tasks=TASKS
        )
        is None
    )
    assert task_headers_problem({**GOOD_HEADERS, "callbacks": None, "chain": []}, tasks=TASKS) is None
    assert (
        task_headers_problem({**GOOD_HEADERS, "stamped_headers": ["a"], "stamps": {"a": 1}}, tasks=TASKS)
        is None
    )
    assert task_body_problem(GOOD_BODY) is None
    assert task_body_problem([[1], {}, None]) is None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            {"task": ["messaging.handle_event"]},
            "'task' header is ['messaging.handle_event'], not a non-empty text",
        ),
        ({"task": ""}, "'task' header is '', not a non-empty text"),
        ({"id": None}, "'id' header is None"),
        ({"id": 7}, "'id' header is 7"),
        ({"retries": "two"}, "'retries' header is 'two', not a whole number"),
        ({"retries": -1}, "'retries' header is -1"),
        ({"retries": True}, "'retries' header is True"),
        ({"eta": "soon"}, "'eta' header is 'soon', not an ISO 8601 time"),
        ({"expires": 1700000000}, "'expires' header is 1700000000"),
        ({"timelimit": "long"}, "'timelimit' header is 'long'"),
        ({"timelimit": [1, 2, 3]}, "'timelimit' header is [1, 2, 3]"),
        ({"timelimit": [-1, None]}, "'timelimit' header is [-1, None]"),
        ({"root_id": {"a": 1}}, "'root_id' header is {'a': 1}"),
        ({"stamped_headers": "x"}, "'stamped_headers' header is 'x', not a list of names"),
        ({"stamps": ["x"]}, "'stamps' header is ['x'], not a table"),
        ({"headers": "not a table"}, "'headers' header is 'not a table', not a table"),
        ({"errbacks": [{"task": "x"}]}, "run other tasks with this one (errbacks)"),
        ({"chain": [{"task": "x"}]}, "run other tasks with this one (chain)"),
        (
            {"timelimit": [3600, None]},
            "'timelimit' header is [3600, None], not a pair of limits in seconds of at most",
        ),
    ],
)
def test_headers_celery_would_choke_on_are_named_with_their_value(change, words):
    problem = task_headers_problem({**GOOD_HEADERS, **change}, tasks=TASKS)
    assert problem is not None
    assert words in problem, problem


def test_a_message_without_a_task_header_is_not_a_task_message():
    headers = {key: value for key, value in GOOD_HEADERS.items() if key != "task"}
    assert (
        task_headers_problem(headers, tasks=TASKS)
        == "The message is not a Celery task message (it has no 'task' header)."
    )
    assert task_headers_problem(None, tasks=TASKS) == task_headers_problem(headers, tasks=TASKS)


def test_a_long_value_is_shown_cut():
    problem = task_headers_problem({**GOOD_HEADERS, "id": ["x" * 500]}, tasks=TASKS)
    assert problem is not None
    assert len(problem) < 200
    assert "..." in problem


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"args": []}, "not a task's three parts"),
        ([[], {}], "not a task's three parts"),
        ([{}, {}, None], "arguments are not a list and a table"),
        ([[], [], None], "arguments are not a list and a table"),
        ([[], {}, ["chain"]], "third part is ['chain'], not a table"),
        ([[], {}, {"is_eager": True}], "third part sets 'is_eager'"),
        ([[], {}, {"retries": 0, "chain": None}], "third part sets 'retries'"),
        ([[], {}, {"delivery_info": {"redelivered": False}}], "third part sets 'delivery_info'"),
        ([[], {}, {"chain": [{"task": "x"}]}], "run other tasks with this one (chain)"),
        ([[], {}, {"errbacks": [{"task": "x"}], "callbacks": [{"task": "y"}]}], "(callbacks, errbacks)"),
    ],
)
def test_a_body_that_is_not_one_this_service_sends_is_named(body, words):
    problem = task_body_problem(body)
    assert problem is not None
    assert words in problem, problem


def test_a_database_failure_that_outlived_its_retries_says_so():
    reason, error_class = failure_reason(OperationalError("could not connect\n to server"), content_type=None)
    assert error_class == "retries_exhausted"
    assert (
        reason
        == "The database did not answer or refused the work: could not connect to server (no retries left)"
    )
    assert (
        failure_reason(InterfaceError("connection already closed"), content_type=None)[1]
        == "retries_exhausted"
    )
    # an error that is never retried stays what it is
    assert failure_reason(ProgrammingError("syntax error"), content_type=None)[1] == "error"


@pytest.mark.parametrize(
    ("value", "count"), [(None, 0), (3, 3), ("4", 4), ("two", 0), (-2, 0), (True, 0), ([1], 0)]
)
def test_a_dead_letter_count_is_read_whatever_the_header_holds(value, count):
    assert dead_letter_count_of(value) == count


def test_a_message_may_carry_its_own_tasks_declared_limits_not_longer_ones():
    retention = {**GOOD_HEADERS, "task": "messaging.retention", "timelimit": [1900, 1800]}
    assert task_headers_problem(retention, tasks=TASKS) is None
    problem = task_headers_problem({**GOOD_HEADERS, "timelimit": [1900, 1800]}, tasks=TASKS)
    assert problem is not None
    assert "not a pair of limits in seconds of at most its task's 75" in problem
    # a task this worker lacks is Celery's to report, whatever its limits
    assert task_headers_problem({**retention, "task": "elsewhere.job"}, tasks=TASKS) is None
