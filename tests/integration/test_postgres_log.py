"""PostgreSQL's own log keeps no customer's address after a duplicate a client sent.

PostgreSQL logs a statement that fails with its text (`log_min_error_statement` is `error` by
default), and Django's statements carry their values in the text. The duplicates that come in
normal operation (a shop's order sent again under its number, a retry meeting its first try
under one Idempotency-Key, a platform's delivery sent twice, two reports of one address's
bounce at the same moment) are written so that they fail on nothing, whichever way the values
reach the server. Each test reads the server's log itself (tests/postgres_log.py), for values
no other test uses."""

import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal

import psycopg
import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from apiauth.models import ApiToken
from apiauth.services import token_hash
from infra.keyed_hash import address_hash
from notifications.models import ProviderEvent, Suppression
from notifications.tracking.suppression import suppression_add
from orders.models import Order
from orders.services import request_fingerprint
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create, tea_house_deliver
from tests.postgres_log import server_log
from tests.shop_order_bodies import shop_order_body
from tests.waiting import wait_until
from tools.drill.sql import one_row


@pytest.fixture(params=["prepared", "prepared, values logged", "pooler"])
def binding(request, settings) -> Iterator[str]:
    """How the statements reach PostgreSQL: as prepared statements (the default); so, with the
    values of a failed one logged (`log_parameter_max_length_on_error`, an operator's choice);
    or with their values in the text (`DATABASE_PREPARED_STATEMENTS=false`, behind a pooler)."""
    settings.DATABASE_PREPARED_STATEMENTS = request.param != "pooler"
    if request.param == "prepared, values logged":
        with connection.cursor() as cursor:
            cursor.execute("SET log_parameter_max_length_on_error = -1")
    yield request.param
    with connection.cursor() as cursor:
        cursor.execute("RESET log_parameter_max_length_on_error")


def _customer() -> dict[str, str]:
    """A customer of this test alone: the server's log is every test database's."""
    tag = uuid.uuid4().hex[:12]
    return {"email": f"pglog-{tag}@example.com", "name": f"Pglog {tag}", "street": f"Pglogstraße {tag}"}


@contextmanager
def _uncommitted(database_url: str, statement: str, params: list) -> Iterator[None]:
    """`statement` run on a connection of its own, committed once this test's connection waits
    for it: what the body does meets the same row being written by another process."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        ours = cursor.fetchone()[0]
    other, prober = psycopg.connect(database_url), psycopg.connect(database_url)

    def waiting() -> bool:
        query = "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s"
        return one_row(prober.execute(query, [ours]))[0] == "Lock"

    waited: list[bool] = []

    def commit_once_we_wait() -> None:
        try:
            waited.append(bool(wait_until(waiting, timeout=10, message="this test waiting for the row")))
        finally:  # whatever happened: a body that waits for the row must not wait forever
            other.commit()

    committer = threading.Thread(target=commit_once_we_wait)
    try:
        other.execute(statement, params)
        committer.start()
        yield
    finally:
        committer.join(timeout=15)
        other.close()
        prober.close()
    assert waited == [True], "the body never met the other's row"


@pytest.mark.django_db
@pytest.mark.parametrize("again", ["same content", "other content"])
def test_a_shop_order_sent_again_under_its_number_leaves_no_address_in_postgres_log(
    api_token, binding, again
):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    customer, log = _customer(), server_log()
    body = shop_order_body(customer_email=customer["email"], customer_name=customer["name"])
    body["shipping_address"].update(name=customer["name"], line1=customer["street"])
    first = client.post("/api/orders/", body, format="json")
    assert first.status_code == 201, first.content
    start = log.end()
    # when the shop sends it again, as it was or changed
    repeat = body if again == "same content" else {**body, "customer_name": f"{customer['name']} Jr"}
    answer = client.post("/api/orders/", repeat, format="json")
    # then the answer is today's: the same order, or the number refused
    assert answer.status_code == (201 if again == "same content" else 409), answer.content
    if again == "same content":
        assert answer.json()["id"] == first.json()["id"]
    else:
        assert answer.json()["error"] == "order_number_taken"
    assert Order.objects.count() == 1
    # and PostgreSQL's log has none of the customer's data
    written = log.written_since(start)
    for value in customer.values():
        assert value not in written, f"{value} in PostgreSQL's log:\n{written}"


@pytest.mark.django_db(transaction=True)
def test_two_retries_of_one_order_at_once_leave_no_address_in_postgres_log(
    api_token, binding, processes_database_url
):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    address, log, key = _customer()["email"], server_log(), uuid.uuid4().hex
    token_id = ApiToken.objects.get(key_hash=token_hash(api_token)).pk
    fingerprint = request_fingerprint(customer_email=address, amount=Decimal("49.90"), currency="EUR")
    start = log.end()
    # given the first try of the order, written and not yet committed
    with _uncommitted(
        processes_database_url,
        f"INSERT INTO {Order._meta.db_table} (id, customer_email, amount, currency, status, version, "
        "api_token_id, idempotency_key, request_fingerprint, created_at, updated_at) "
        "VALUES (%s, %s, 49.90, 'EUR', 'created', 1, %s, %s, %s, now(), now())",
        [first_id := uuid.uuid4(), address, token_id, key, fingerprint],
    ):
        # when its retry comes meanwhile
        answer = client.post(
            "/api/orders/",
            {"customer_email": address, "amount": "49.90", "currency": "EUR"},
            format="json",
            headers={"Idempotency-Key": key},
        )
    # then it gets the first try's order, as a retry does
    assert answer.status_code == 201, answer.content
    assert (answer.json()["id"], answer.headers["Idempotent-Replayed"]) == (str(first_id), "true")
    # and PostgreSQL's log does not have the address
    written = log.written_since(start)
    assert address not in written, f"{address} in PostgreSQL's log:\n{written}"


@pytest.mark.django_db
def test_a_platform_delivery_sent_twice_leaves_no_address_in_postgres_log(binding):
    address, log = _customer()["email"], server_log()
    tea_house_create()
    customer = dict(shopify.ORDER["customer"], email=address)
    payload = shopify.order(email=address, contact_email=address, customer=customer)
    assert tea_house_deliver("orders/create", payload, "evt-twice") == "used"
    start = log.end()
    # when the platform sends it again
    detail = tea_house_deliver("orders/create", payload, "evt-twice")
    # then it is a duplicate
    assert detail == "duplicate"
    # and PostgreSQL's log does not have the address
    written = log.written_since(start)
    assert address not in written, f"{address} in PostgreSQL's log:\n{written}"


@pytest.mark.django_db(transaction=True)
def test_two_suppressions_of_one_address_at_once_leave_no_address_in_postgres_log(
    binding, processes_database_url
):
    address, log = _customer()["email"], server_log()
    event = ProviderEvent.objects.create(
        id=uuid.uuid4(),
        provider="resend",
        provider_event_id=f"evt_{uuid.uuid4().hex}",
        kind=ProviderEvent.Kind.BOUNCED,
        occurred_at=timezone.now(),
        hard_bounce=True,
        payload={},
    )
    start = log.end()
    # given another worker's suppression of the address, written and not yet committed
    with _uncommitted(
        processes_database_url,
        f"INSERT INTO {Suppression._meta.db_table} (address, address_hash, reason, detail, created_at, "
        "lift_comment) VALUES (%s, %s, 'bounced', '', now(), '')",
        [address, address_hash(address)],
    ):
        # when ours is written meanwhile
        added = suppression_add(event=event, address=address)
    # then the address is suppressed once, by the other
    assert added is False
    assert Suppression.objects.filter(address_hash=address_hash(address)).count() == 1
    # and PostgreSQL's log does not have the address
    written = log.written_since(start)
    assert address not in written, f"{address} in PostgreSQL's log:\n{written}"
