"""A customer's personal data in the admin, through Django's test client on real PostgreSQL:
the export downloaded as a JSON file, the erasure confirmed by typing the address again and
recorded under the user's name, an email being sent making it wait, the permissions that
guard both, the read-only list of erasures, and the way to the page. The address never
travels in a URL."""

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from notifications.models import Notification
from orders.models import Order
from privacy.erasure import customer_erase
from privacy.models import Erasure, Export
from privacy.officers import officers_group_ensure
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create
from tests.factories import OrderFactory, UnpublishedOrderFactory, staff_user

pytestmark = pytest.mark.django_db
ADDRESS, OTHER = "ada@example.com", "grace@example.com"
PAGE = "/admin/privacy/erasure/customer/"
EXPORT = "/admin/privacy/erasure/customer/export/"
ERASE = "/admin/privacy/erasure/customer/erase/"
ERASURES = "/admin/privacy/erasure/"
_URL_IN_HTML = re.compile(r'(?:href|action|formaction)="([^"]*)"')


@pytest.fixture
def orders(django_capture_on_commit_callbacks) -> dict[str, Order]:
    """Ada's order and Grace's, each with its confirmation pending (no broker: the publish is
    captured and never run)."""
    with django_capture_on_commit_callbacks(execute=False):
        return {address: OrderFactory.create(customer_email=address) for address in (ADDRESS, OTHER)}


@pytest.fixture
def officer(client):
    """Dora, a staff user in the Personal data officers group, who may also open orders."""
    dora = staff_user("dora", reviewer=False, otherwise_may_view="view_order")
    dora.groups.add(officers_group_ensure())
    client.force_login(dora)
    return client


def _urls_in(html: str) -> list[str]:
    return _URL_IN_HTML.findall(html)


def _address_in_no_url(response) -> None:
    """Neither the request's URL nor any link or form target of the page names an address."""
    assert "@" not in response.request["PATH_INFO"] + response.request.get("QUERY_STRING", "")
    assert not [url for url in _urls_in(response.content.decode()) if "@" in url or "%40" in url]


def _confirm(client, retyped: str):
    return client.post(ERASE, {"address": ADDRESS, "retyped": retyped})


def test_the_export_downloads_a_json_file_of_the_customer_s_orders_and_no_one_else_s(officer, orders):
    page = officer.get(PAGE)
    assert 'formaction="/admin/privacy/erasure/customer/export/"' in page.content.decode()
    # when
    response = officer.post(EXPORT, {"address": ADDRESS.upper()})
    # then a file, named without the address
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    disposition = response["Content-Disposition"]
    assert re.fullmatch(r'attachment; filename="customer-export-[\d-]+\.json"', disposition), disposition
    document = json.loads(response.content)
    assert [order["order"] for order in document["orders"]] == [str(orders[ADDRESS].id)]
    assert [email["status"] for email in document["emails"]] == ["pending"]
    assert OTHER not in response.content.decode()
    for shown in (page, response):
        _address_in_no_url(shown)
    # and the disclosure is recorded under the officer's name, without the address
    [export] = Export.objects.all()
    assert (export.via, export.orders) == ("admin", 1)
    assert ADDRESS not in export.actor_name + export.address_hash


def test_what_is_not_an_address_is_refused_on_the_form_and_nothing_happens(officer, orders):
    for url in (EXPORT, ERASE):
        response = officer.post(url, {"address": "ada"})
        assert response.status_code == 200
        assert "&#x27;ada&#x27; is not an email address." in response.content.decode()
        assert "Content-Disposition" not in response
    assert not Erasure.objects.exists()


def test_an_erasure_first_counts_what_is_held_and_asks_for_the_address_again(officer, orders):
    # when
    response = officer.post(ERASE, {"address": f" {ADDRESS} "})
    # then counts, not the data, and nothing changed yet
    html = response.content.decode()
    assert "Erase this customer&#x27;s personal data?" in html
    assert "<li>orders: <strong>1</strong></li>" in html
    assert "<li>emails: <strong>1</strong></li>" in html
    assert "suppression (no email is sent to the address): <strong>0</strong>" in html
    assert 'name="retyped"' in html
    assert f'<input type="hidden" name="address" value="{ADDRESS}"' in html
    assert Order.objects.get(pk=orders[ADDRESS].pk).customer_email == ADDRESS
    assert not Erasure.objects.exists()
    _address_in_no_url(response)


def test_another_address_typed_again_erases_nothing(officer, orders):
    for retyped in ("", "ada@example.org"):
        # when
        response = _confirm(officer, retyped)
        # then the confirmation again, with why
        assert "Not the same address: nothing was erased." in response.content.decode()
    assert Order.objects.get(pk=orders[ADDRESS].pk).customer_email == ADDRESS
    assert not Erasure.objects.exists()


def test_the_address_typed_again_erases_it_recorded_via_the_admin_under_the_user_s_name(officer, orders):
    # when (typed again in another case)
    response = _confirm(officer, ADDRESS.upper())
    # then
    html = response.content.decode()
    [erasure] = Erasure.objects.all()
    assert (erasure.via, erasure.actor_name) == ("admin", "dora")
    assert erasure.actor is not None
    assert erasure.actor.username == "dora"
    assert f'Recorded as erasure <strong id="erasure-id">{erasure.pk}</strong>' in html
    assert '<th scope="row">orders</th><td>1</td>' in html
    assert '<th scope="row">emails not sent</th><td>1</td>' in html
    assert Order.objects.get(pk=orders[ADDRESS].pk).customer_email == ""
    assert Order.objects.get(pk=orders[OTHER].pk).customer_email == OTHER  # nobody else's
    _address_in_no_url(response)


@pytest.mark.django_db(transaction=True)
def test_the_erasure_commits_on_its_own_as_in_a_real_request(client):
    # given an order committed (its event unpublished: no broker), outside any test transaction
    order = UnpublishedOrderFactory.create(customer_email=ADDRESS)
    dora = staff_user("dora", reviewer=False, otherwise_may_view="view_order")
    dora.groups.add(officers_group_ensure())  # the group again: a transactional test flushes it
    client.force_login(dora)
    # when
    response = _confirm(client, ADDRESS)
    # then the erasure's own (durable) transaction ran and committed
    assert response.status_code == 200
    assert "Recorded as erasure" in response.content.decode()
    assert Order.objects.get(pk=order.pk).customer_email == ""
    assert Erasure.objects.get().via == "admin"


def test_an_email_being_sent_shows_why_and_changes_nothing(officer, orders):
    Notification.objects.filter(order=orders[ADDRESS]).update(
        status="sending", lease_owner="worker-1", lease_expires_at=timezone.now() + timedelta(seconds=60)
    )
    # when
    response = _confirm(officer, ADDRESS)
    # then
    assert (
        "An email of this customer is being sent right now; nothing changed; try again in a minute."
        in response.content.decode()
    )
    assert Order.objects.get(pk=orders[ADDRESS].pk).customer_email == ADDRESS
    assert Notification.objects.get(order=orders[ADDRESS]).status == "sending"
    assert not Erasure.objects.exists()


def test_staff_without_the_permissions_get_403_and_nothing_happens(client, orders):
    client.force_login(staff_user("sam", reviewer=False, otherwise_may_view="view_erasure"))
    for answer in (
        client.get(PAGE),
        client.post(PAGE, {"address": ADDRESS}),
        client.post(EXPORT, {"address": ADDRESS}),
        client.post(ERASE, {"address": ADDRESS}),
        _confirm(client, ADDRESS),
    ):
        assert answer.status_code == 403
        assert ADDRESS not in answer.content.decode()
    assert Order.objects.get(pk=orders[ADDRESS].pk).customer_email == ADDRESS
    assert not Erasure.objects.exists()


def test_each_button_needs_its_own_permission(client, orders):
    exporter = staff_user("ed", reviewer=False, otherwise_may_view="export_customer")
    client.force_login(exporter)
    page = client.get(PAGE).content.decode()
    assert "Export (download JSON)" in page
    assert "Erase…" not in page
    assert _confirm(client, ADDRESS).status_code == 403
    # and one who may erase may not export
    eraser = staff_user("eve", reviewer=False, otherwise_may_view="erase_customer")
    client.force_login(eraser)
    assert client.post(EXPORT, {"address": ADDRESS}).status_code == 403
    assert not Erasure.objects.exists()


def test_the_erasures_list_never_shows_an_address_and_finds_an_address_s_erasures(officer, orders):
    _confirm(officer, ADDRESS)
    ada_s = Erasure.objects.get()
    grace_s = customer_erase(address=OTHER, via=Erasure.Via.COMMAND, actor=None, actor_name="ops")
    # the list: both, without an address
    listed = officer.get(ERASURES).content.decode()
    assert f"{ERASURES}{ada_s.pk}/change/" in listed
    assert f"{ERASURES}{grace_s.pk}/change/" in listed
    assert "@" not in listed
    assert "orders: 1" in listed
    assert "A customer's personal data: export or erase" in listed  # the way to the page
    # when an address is searched for
    found = officer.get(ERASURES, {"q": ADDRESS.upper()}).content.decode()
    # then its erasures, by the address's keyed hash, and no address in the rows or their links
    assert f"{ERASURES}{ada_s.pk}/change/" in found
    assert f"{ERASURES}{grace_s.pk}/change/" not in found
    [rows] = re.findall(r'<table id="result_list">.*?<tbody>(.*?)</tbody>', found, re.DOTALL)
    assert "@" not in rows
    assert "example.com" not in rows.lower()  # nor the search carried into the rows' links
    # and the record itself shows none either
    record = officer.get(f"{ERASURES}{ada_s.pk}/change/").content.decode()
    assert "dora" in record
    assert ADDRESS not in record


def test_the_admin_home_and_an_order_s_page_lead_to_the_page_with_its_address(officer, orders):
    home = officer.get("/admin/").content.decode()
    assert f'href="{PAGE}"' in home
    order_page = officer.get(f"/admin/orders/order/{orders[ADDRESS].pk}/change/").content.decode()
    assert f'action="{PAGE}"' in order_page
    assert f'<input type="hidden" name="address" value="{ADDRESS}">' in order_page
    # when the order's button is pressed
    response = officer.post(PAGE, {"address": ADDRESS})
    # then the page, its form filled in, and nothing done
    assert f'value="{ADDRESS}"' in response.content.decode()
    assert not Erasure.objects.exists()
    _address_in_no_url(response)


def test_staff_without_the_permissions_see_no_way_to_the_page(client, orders):
    client.force_login(staff_user("sam", reviewer=False, otherwise_may_view="view_order"))
    assert PAGE not in client.get("/admin/").content.decode()
    assert PAGE not in client.get(f"/admin/orders/order/{orders[ADDRESS].pk}/change/").content.decode()


# Grace's address quoted in a body nested deeper than Python's parser can descend, and in one
# with a lone surrogate escape (no character: it cannot be written as UTF-8).
DEEP = b'{"note": "grace@example.com", "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"
LONE_SURROGATE = b'{"note": "grace@example.com \\ud800"}'


@pytest.mark.parametrize(
    ("body", "as_sent"),
    [(DEEP, DEEP.decode()), (LONE_SURROGATE, {"note": "grace@example.com \ufffd"})],
    ids=["nested 5,000 levels deep", "a lone surrogate"],
)
def test_a_kept_delivery_the_parser_or_utf8_cannot_take_as_is_is_still_exported_and_erased(
    officer, orders, body, as_sent
):
    # given: a signed delivery that cannot be used (it holds no order), kept with its body
    tea_house_create()
    headers: dict = shopify.signed_headers(body, topic="orders/create", event_id="kept")
    response = Client().post("/shops/tea-house/webhook", body, content_type="application/json", **headers)
    assert response.json()["detail"] == "could_not_use"
    # when: Grace's export, and the first step of her erasure
    download = officer.post(EXPORT, {"address": OTHER})
    step_one = officer.post(ERASE, {"address": OTHER})
    # then: the export holds it (as its text when it nests too deep to be parsed), and the
    # erasure asks for the address again
    assert download.status_code == 200
    [kept] = json.loads(download.content)["what the shops' platforms sent"]
    assert kept["as sent"] == as_sent
    assert step_one.status_code == 200
    assert 'name="retyped"' in step_one.content.decode()
