"""While no primary database can be reached, the web answers 503 with Retry-After, never 500
(api/errors.py), for exactly the errors that say so (infra/database_errors.py); any other
database error stays a 500. No service needed: the errors are made as psycopg raises them and
Django wraps them."""

import json

import psycopg
import pytest
from django.db import DatabaseError, IntegrityError, InterfaceError, InternalError, OperationalError
from django.test import RequestFactory
from psycopg import errors

from api.errors import (
    DATABASE_RETRY_AFTER_SECONDS,
    DatabaseUnavailableMiddleware,
    server_error,
)
from infra.database_errors import database_unavailable


def _as_django_raises(django_class: type[DatabaseError], cause: Exception) -> DatabaseError:
    """Django's error with psycopg's as its cause, as DatabaseErrorWrapper raises it."""
    error = django_class(str(cause))
    error.__cause__ = cause
    return error


def _server(sqlstate: str) -> Exception:
    return errors.lookup(sqlstate)(f"the server says {sqlstate}")


UNAVAILABLE = {
    "connecting failed": _as_django_raises(OperationalError, psycopg.OperationalError("connection failed")),
    "connection broke": _as_django_raises(
        OperationalError, psycopg.OperationalError("server closed the connection unexpectedly")
    ),
    "server shutting down": _as_django_raises(OperationalError, _server("57P01")),
    "another backend crashed": _as_django_raises(OperationalError, _server("57P02")),
    "server starting": _as_django_raises(OperationalError, _server("57P03")),
    "connection failure": _as_django_raises(OperationalError, _server("08006")),
    "a standby": _as_django_raises(InternalError, _server("25006")),
    "closed before": InterfaceError("connection already closed"),
}
THE_WORKS_OWN = {
    "deadlock": _as_django_raises(OperationalError, _server("40P01")),
    "statement timeout": _as_django_raises(OperationalError, _server("57014")),
    "lock not available": _as_django_raises(OperationalError, _server("55P03")),
    "unique violation": _as_django_raises(IntegrityError, _server("23505")),
    "not the database's": ValueError("a bug"),
}


@pytest.mark.parametrize("error", UNAVAILABLE.values(), ids=UNAVAILABLE.keys())
def test_errors_that_say_no_primary_can_be_reached_are_known(error):
    assert database_unavailable(error)


@pytest.mark.parametrize("error", THE_WORKS_OWN.values(), ids=THE_WORKS_OWN.keys())
def test_errors_of_the_work_itself_are_not(error):
    assert not database_unavailable(error)
    assert not database_unavailable(None)


def _view_failing_with(error: Exception):
    middleware = DatabaseUnavailableMiddleware(lambda request: pytest.fail("not reached"))
    return lambda request: middleware.process_exception(request, error)


def test_the_api_answers_503_in_json_with_retry_after():
    request = RequestFactory().post("/api/orders/")
    response = _view_failing_with(UNAVAILABLE["connecting failed"])(request)
    assert response.status_code == 503
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER_SECONDS)
    assert json.loads(response.content)["error"] == "database_unavailable"


def test_other_pages_answer_503_in_plain_words_with_retry_after():
    response = _view_failing_with(UNAVAILABLE["server shutting down"])(RequestFactory().get("/admin/"))
    assert (response.status_code, response["Content-Type"]) == (503, "text/plain; charset=utf-8")
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER_SECONDS)


def test_the_middleware_leaves_every_other_error_to_djangos_500():
    assert _view_failing_with(THE_WORKS_OWN["deadlock"])(RequestFactory().get("/api/orders/")) is None


def test_an_error_raised_outside_a_view_is_answered_503_by_the_500_handler_too():
    request = RequestFactory().get("/api/orders/")
    try:
        raise UNAVAILABLE["connection broke"]
    except OperationalError:  # Django calls handler500 while it handles the exception
        response = server_error(request)
    assert (response.status_code, response["Retry-After"]) == (503, str(DATABASE_RETRY_AFTER_SECONDS))
    try:
        raise THE_WORKS_OWN["unique violation"]
    except IntegrityError:
        assert server_error(request).status_code == 500
