"""Attacks on PATCH /api/orders/<id>/ (a shop's order changed after it was placed): what it trusts
in the body, its interplay with payments, refunds, parcels and cancellations, concurrency under
real web processes, erasure, the admin, and the emails it sends through the real worker. A test
that fails shows a finding; one that passes documents a defence that held."""

import copy
import json
from functools import partial
from typing import Any

import pytest
import requests
from rest_framework.test import APIClient

from apiauth.services import api_token_create
from notifications.content.preview import notification_preview_now
from notifications.models import Notification
from orders.models import Order, OrderEdit, OrderVersion, Refund, Shipment
from tests.at_once import at_once
from tests.shop_order_bodies import SHOP_ORDER, shop_order_body
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db

TEA, MUG = SHOP_ORDER["lines"]
CUP: dict[str, Any] = {
    "sku": "CUP-1",
    "name": "Cup",
    "quantity": 1,
    "unit_price": 690,
    "total": 690,
    "tax_rate": "0.19",
}
# 3 teas, the mug gone, a cup added: 37.50 + 6.90 + 4.90 - 5.00 = 44.30 (placed at 34.80)
EDITED: dict[str, Any] = {"lines": [TEA | {"quantity": 3, "total": 3750}, CUP], "total": 4430}
EDITED_AGAIN: dict[str, Any] = {"lines": [*EDITED["lines"], MUG], "total": 5420}
# The mug gone: 25.00 + 4.90 - 5.00 = 24.90
TEA_ONLY: dict[str, Any] = {"lines": [TEA], "total": 2490}


@pytest.fixture
def shop_order(client) -> Order:
    response = client.post("/api/orders/", SHOP_ORDER, format="json")
    assert response.status_code == 201, response.content
    return Order.objects.get(id=response.json()["id"])


def _edit(client, order: Order, body: dict):
    return client.patch(f"/api/orders/{order.id}/", copy.deepcopy(body), format="json")


def _pay(client, order: Order) -> None:
    assert client.post(f"/api/orders/{order.id}/pay/", format="json").status_code == 200


def _refund(client, order: Order, refund_id: str, amount: int, **more):
    body = {"refund_id": refund_id, "amount": amount, **more}
    return client.post(f"/api/orders/{order.id}/refunds/", body, format="json")


def _ship(client, order: Order, shipment_id: str, lines: list | None = None):
    body: dict[str, Any] = {"shipment_id": shipment_id, "carrier": "DHL"}
    if lines is not None:
        body["lines"] = lines
    return client.post(f"/api/orders/{order.id}/shipments/", body, format="json")


# --- money: what was paid, what was refunded ------------------------------------------------------


def test_an_edit_raising_a_paid_orders_total_does_not_raise_what_can_be_refunded(client, shop_order):
    """docs/orders.md (refunds): what was paid is the order's total once it is paid. The customer
    paid 34.80; an edit raising the order to 44.30 after the payment must not let 44.30 go back:
    `_refundable_check` reads the live `Order.amount`, which the edit moved."""
    _pay(client, shop_order)
    assert _edit(client, shop_order, EDITED).status_code == 200
    # when: everything the order is worth now goes back
    response = _refund(client, shop_order, "R1", 4430)
    # then: 9.50 more than the customer ever paid is refused
    assert response.status_code == 409, response.content
    assert response.json()["error"] == "refund_exceeds_paid"


def test_a_cancellation_refund_after_an_edit_is_limited_to_what_was_paid(client, shop_order):
    """The same through the cancellation: a refund announced with it of the edited total."""
    _pay(client, shop_order)
    assert _edit(client, shop_order, EDITED).status_code == 200
    response = client.post(
        f"/api/orders/{shop_order.id}/cancel/", {"refund": {"refund_id": "R1", "amount": 4430}}, format="json"
    )
    assert response.status_code == 409, response.content
    assert not Refund.objects.exists()


def test_an_edit_lowering_a_paid_orders_total_still_lets_the_shop_refund_what_was_paid(client, shop_order):
    """The customer paid 34.80; the mug is taken off (24.90). The shop owes the 9.90 difference
    and may still refund all of it later (a cancellation): the refund limit fell with the edit
    to 24.90, so 9.90 the customer paid can never be given back through the API."""
    _pay(client, shop_order)
    assert _edit(client, shop_order, TEA_ONLY).status_code == 200
    # when: the difference, then the rest of what was paid
    difference = _refund(client, shop_order, "R1", 990)
    rest = _refund(client, shop_order, "R2", 2490)
    # then
    assert difference.status_code == 201, difference.content
    assert rest.status_code == 201, rest.content


def test_an_edit_cannot_make_a_refunded_order_over_refunded(client, shop_order):
    """Defence: the total never falls below what was refunded; exactly what was refunded fits."""
    _pay(client, shop_order)
    assert _refund(client, shop_order, "R1", 3000).status_code == 201
    below = _edit(client, shop_order, TEA_ONLY)
    assert below.status_code == 409, below.content
    assert below.json()["error"] == "edit_below_refunded"
    # 25.00 + 9.90 + 4.90 - 9.80 = 30.00: exactly the refunded amount
    exactly = _edit(client, shop_order, {"lines": [TEA, MUG], "discounts": [{"amount": 980}], "total": 3000})
    assert exactly.status_code == 200, exactly.content


def test_an_edit_cannot_take_a_line_below_what_was_refunded_of_it(client, shop_order):
    """The mug was returned and refunded by line. An edit then removing the mug is accepted:
    the order now holds 0 mugs of which 1 was refunded (the refund's own rule, never more of a
    line than ordered less earlier refunds, no longer holds), and the total fell by the mug while
    its 9.90 was refunded as well. The edit should refuse a line below what was refunded of it,
    as it does for what shipped."""
    _pay(client, shop_order)
    refunded = _refund(client, shop_order, "R1", 990, lines=[{"sku": "MUG-1", "quantity": 1}])
    assert refunded.status_code == 201, refunded.content
    # when
    response = _edit(client, shop_order, TEA_ONLY)
    # then
    assert response.status_code == 409, response.content
    assert not OrderEdit.objects.exists()


def test_a_refund_after_an_edit_names_the_lines_of_the_order_now(client, shop_order):
    """Defence: a refund naming a line the edit removed is refused; the new line is refundable."""
    _pay(client, shop_order)
    assert _edit(client, shop_order, EDITED).status_code == 200
    mug = _refund(client, shop_order, "R1", 990, lines=[{"sku": "MUG-1", "quantity": 1}])
    assert mug.status_code == 409, mug.content
    assert mug.json()["error"] == "refund_lines_unknown"
    cup = _refund(client, shop_order, "R2", 690, lines=[{"sku": "CUP-1", "quantity": 1}])
    assert cup.status_code == 201, cup.content


# --- parcels ---------------------------------------------------------------------------------------


def test_the_parcel_of_everything_not_shipped_after_an_edit_carries_the_edited_lines(client, shop_order):
    """Defence: "everything not shipped" is read from the version the order is at now."""
    assert _ship(client, shop_order, "P1", [{"sku": "TEA-GREEN", "quantity": 2}]).status_code == 201
    assert _edit(client, shop_order, EDITED).status_code == 200
    # when
    rest = _ship(client, shop_order, "P2")
    # then: the third tea and the cup; the mug, gone, does not ship
    assert rest.status_code == 201, rest.content
    parcel = Shipment.objects.get(order=shop_order, shop_shipment_id="P2")
    assert sorted((line["sku"], line["quantity"]) for line in parcel.lines) == [
        ("CUP-1", 1),
        ("TEA-GREEN", 1),
    ]


def test_a_shipped_sku_is_counted_across_split_lines_and_not_by_a_lookalike(client, shop_order):
    """Defence: the shipped teas may be split over two lines, but not renamed away."""
    assert _ship(client, shop_order, "P1", [{"sku": "TEA-GREEN", "quantity": 2}]).status_code == 201
    one = TEA | {"quantity": 1, "total": 1250}
    split = _edit(client, shop_order, {"lines": [one, one, MUG], "total": 3480})
    assert split.status_code == 200, split.content
    lookalike = _edit(client, shop_order, {"lines": [TEA | {"sku": "tea-green"}, MUG], "total": 3480})
    assert lookalike.status_code == 409, lookalike.content
    assert lookalike.json()["error"] == "edit_below_shipped"


# --- odd bodies -----------------------------------------------------------------------------------


def test_250_lines_fit_and_251_are_a_400(client, shop_order):
    """Defence: MAX_LINES as on POST; 250 lines are one edit with one change."""
    lines = [TEA | {"sku": f"SKU-{index}", "quantity": 1, "total": 1250} for index in range(250)]
    fits = _edit(client, shop_order, {"lines": lines, "total": 250 * 1250 + 490 - 500})
    assert fits.status_code == 200, fits.content[:300]
    too_many = [*lines, TEA | {"sku": "SKU-250", "quantity": 1, "total": 1250}]
    refused = _edit(client, shop_order, {"lines": too_many, "total": 251 * 1250 + 490 - 500})
    assert refused.status_code == 400
    assert "lines" in refused.json()["fields"]
    assert OrderEdit.objects.count() == 1


def test_a_line_claiming_to_be_a_platform_line_id_is_a_400(client, shop_order):
    """Defence: the API takes no `sku_is_line_id` (it would hide the SKU from emails)."""
    response = _edit(client, shop_order, {"lines": [TEA | {"sku_is_line_id": True}, MUG], "total": 3480})
    assert response.status_code == 400, response.content
    assert not OrderEdit.objects.exists()


@pytest.mark.parametrize("text", ["Tea\x00", "Tea\ud800", "Tea\u202egnp.exe", "Tea\nBCC: x@example.com"])
def test_invisible_and_control_characters_in_an_edit_are_a_400_never_a_500(client, shop_order, text):
    """Defence: the text fields refuse control, format and surrogate characters."""
    body = json.dumps({"lines": [TEA | {"name": text}, MUG], "total": 3480})  # "\\ud800" escaped
    response = client.patch(f"/api/orders/{shop_order.id}/", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert not OrderEdit.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"lines": [TEA], "discounts": [{"amount": 5000}], "total": 1}, "total"),  # bigger than the lines
        ({"lines": [TEA], "discounts": [{"amount": 2990}], "total": 0}, "total"),  # nothing left to pay
        (
            {
                "lines": [TEA | {"quantity": 10_000, "unit_price": 10**9, "total": 10**13}],
                "total": 10**13 - 10,
            },
            "total",
        ),
        ({"lines": [TEA], "total": 2490, "tax_total": 2491}, "tax_total"),
    ],
)
def test_totals_that_do_not_fit_are_a_400_never_a_500(client, shop_order, body, field):
    """Defence: discounts bigger than the lines, a zero total, an amount the column cannot keep."""
    response = _edit(client, shop_order, body)
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"], response.json()
    assert not OrderEdit.objects.exists()


def test_a_free_line_added_is_an_edit_told_as_added(client, shop_order):
    """Defence: a zero-priced line is a real change, listed as added."""
    gift = {"sku": "GIFT", "name": "Gift", "quantity": 1, "unit_price": 0, "total": 0, "tax_rate": "0"}
    response = _edit(client, shop_order, {"lines": [TEA, MUG, gift], "total": 3480})
    assert response.status_code == 200, response.content
    [change] = OrderEdit.objects.all()
    assert [(line["sku"], line["before"], line["after"]) for line in change.lines] == [("GIFT", 0, 1)]


def test_a_new_price_in_a_second_line_of_the_same_sku_is_told_as_a_change(client, shop_order):
    """`lines_changed` sums a SKU's lines but keeps its first line's price: one of the two teas
    at a new price (12.50 -> 10.00) is a stored change of the total whose email lists no line,
    only "New total: 32.30 (was 34.80)"."""
    teas = [TEA | {"quantity": 1, "total": 1250}, TEA | {"quantity": 1, "unit_price": 1000, "total": 1000}]
    response = _edit(client, shop_order, {"lines": [*teas, MUG], "total": 3230})
    assert response.status_code == 200, response.content
    [change] = OrderEdit.objects.all()
    assert [line["sku"] for line in change.lines] == ["TEA-GREEN"], change.lines


def test_the_same_lines_in_another_order_are_no_change(client, shop_order):
    """The same lines sent in another order are a new version and an "order changed" email
    that lists nothing (lines_changed is empty, the total the same): the customer is told
    their order changed when nothing they bought did."""
    response = _edit(client, shop_order, {"lines": [MUG, TEA], "total": 3480})
    assert response.status_code == 200, response.content
    assert response.headers.get("Order-Unchanged") == "true"
    assert not Notification.objects.filter(kind="order_edit").exists()


def test_an_edit_cannot_blank_the_name_a_new_order_must_have(client, shop_order):
    """POST requires a customer_name (not blank); the edit's text_field(required=False) allows
    blank, so a PATCH empties the name an order must have (and its emails' greeting)."""
    response = _edit(client, shop_order, {**copy.deepcopy(EDITED), "customer_name": ""})
    assert response.status_code == 400, response.content
    assert "customer_name" in response.json()["fields"]
    assert Order.objects.get(pk=shop_order.pk).customer_name == "Ada Lovelace"


# --- the email, the admin, erasure ----------------------------------------------------------------


def test_markup_in_an_edit_is_text_in_the_emails_html_part(client, shop_order):
    """Defence: product and customer names are escaped in the HTML, and kept as typed in the text."""
    evil = '<img src=x onerror="alert(1)">'
    body = {
        "lines": [TEA | {"name": f"Tea {evil}"}, CUP | {"name": "Cup <b>bold</b> & co"}, MUG],
        "total": 3480 + 690,
        "customer_name": f"Ada {evil}",
    }
    assert _edit(client, shop_order, body).status_code == 200
    email = Notification.objects.get(kind="order_edit")
    preview = notification_preview_now(email)
    assert preview.email is not None, preview.error
    assert "<img src=x onerror" not in preview.email.html
    assert "<b>bold</b>" not in preview.email.html
    assert "&lt;img src=x" in preview.email.html
    assert "Cup <b>bold</b> & co" in preview.email.text
    assert "\n" not in preview.email.subject


def test_the_admin_shows_each_version_with_markup_as_text(client, admin_client, shop_order):
    """Defence: the order's page lists both versions, names escaped."""
    edited = _edit(
        client, shop_order, {"lines": [TEA | {"name": "<script>x()</script>"}, MUG], "total": 3480}
    )
    assert edited.status_code == 200, edited.content
    page = admin_client.get(f"/admin/orders/order/{shop_order.id}/change/").content.decode()
    assert "<script>x()</script>" not in page
    assert "&lt;script&gt;x()&lt;/script&gt;" in page
    assert page.count("&quot;total&quot;: 3480") >= 2, "both versions shown"


@pytest.mark.django_db(transaction=True)
def test_the_erasure_of_an_edited_order_keeps_no_names_nor_skus(client, shop_order):
    """Defence: each version and each change lose what names the person and the products."""
    body = {**copy.deepcopy(EDITED), "customer_name": "Ada Byron", "payment_method": "Card of Ada Byron"}
    assert _edit(client, shop_order, body).status_code == 200
    erased = client.post("/api/customers/erasure/", {"email": SHOP_ORDER["customer_email"]}, format="json")
    assert erased.status_code == 200, erased.content
    [change] = OrderEdit.objects.all()
    assert all(
        set(line) <= {"before", "after", "unit_price_before", "unit_price_after"} for line in change.lines
    )
    assert [(line["before"], line["after"]) for line in change.lines] == [(2, 3), (0, 1), (1, 0)]
    for version in OrderVersion.objects.filter(order=shop_order):
        text = str(version.content)
        assert "Ada" not in text, text
        assert "Cup" not in text, text
        assert "TEA-GREEN" not in text, text
    # and the erased order takes no more edits
    again = _edit(client, shop_order, EDITED_AGAIN)
    assert again.status_code == 409
    assert again.json()["error"] == "order_erased"


# --- concurrency under real web processes ---------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("clean_queues")
def test_edits_racing_each_other_and_parcels_refunds_and_cancels_keep_the_books(start_web):
    """Defence: every change takes the order's row lock; whichever goes first, the other sees it."""
    _, token = api_token_create(name="concurrent edits")
    url = start_web(workers=4)
    headers = {"Authorization": f"Bearer {token}", "Connection": "close"}

    def call(method: str, path: str, body: dict | None = None) -> requests.Response:
        return requests.request(method, f"{url}{path}", json=body or {}, headers=headers, timeout=20)

    def place(number: str) -> str:
        placed = call("POST", "/api/orders/", shop_order_body(number=number))
        assert placed.status_code == 201, placed.text
        return placed.json()["id"]

    for round_ in range(3):
        # three edits of version 1 at once: one wins, two are refused as stale
        order_id = place(f"30{round_}1")
        path = f"/api/orders/{order_id}/"
        bodies = [EDITED | {"version": 1}, EDITED_AGAIN | {"version": 1}, TEA_ONLY | {"version": 1}]
        answers = at_once([partial(call, "PATCH", path, body) for body in bodies])
        assert sorted(a.status_code for a in answers) == [200, 409, 409], [a.text[:200] for a in answers]
        assert OrderEdit.objects.filter(order_id=order_id).count() == 1
        assert Notification.objects.filter(order_id=order_id, kind="order_edit").count() == 1

        # the same edit three times at once (a retry): one change, two unchanged
        order_id = place(f"30{round_}2")
        path = f"/api/orders/{order_id}/"
        answers = at_once([partial(call, "PATCH", path, EDITED) for _ in range(3)])
        assert [a.status_code for a in answers] == [200, 200, 200], [a.text[:200] for a in answers]
        assert sorted(a.headers.get("Order-Unchanged", "") for a in answers) == ["", "true", "true"]
        assert Notification.objects.filter(order_id=order_id, kind="order_edit").count() == 1

        # an edit taking a tea off, racing the parcel of everything: never more shipped than held
        order_id = place(f"30{round_}3")
        fewer = {"lines": [TEA | {"quantity": 1, "total": 1250}, MUG], "total": 2230}
        answers = at_once(
            [
                partial(call, "PATCH", f"/api/orders/{order_id}/", fewer),
                partial(
                    call, "POST", f"/api/orders/{order_id}/shipments/", {"shipment_id": "P", "carrier": "DHL"}
                ),
            ]
        )
        assert all(a.status_code in (200, 201, 409) for a in answers), [a.text[:200] for a in answers]
        order = Order.objects.get(pk=order_id)
        held = OrderVersion.objects.get(order=order, number=order.content_version or 1).content
        [parcel] = Shipment.objects.filter(order=order)
        teas_held = sum(line["quantity"] for line in held["lines"] if line["sku"] == "TEA-GREEN")
        teas_shipped = sum(line["quantity"] for line in parcel.lines if line["sku"] == "TEA-GREEN")
        assert teas_shipped == teas_held

        # an edit to 24.90 racing a refund of 30.00 of the paid 34.80: never more back than was
        # paid (refunds go by what the payment took, which an edit does not move). The refund
        # first: the edit below it is refused; the edit first: the refund still fits the 34.80.
        order_id = place(f"30{round_}4")
        assert call("POST", f"/api/orders/{order_id}/pay/").status_code == 200
        answers = at_once(
            [
                partial(call, "PATCH", f"/api/orders/{order_id}/", TEA_ONLY),
                partial(call, "POST", f"/api/orders/{order_id}/refunds/", {"refund_id": "R", "amount": 3000}),
            ]
        )
        assert sorted(a.status_code for a in answers) in ([201, 409], [200, 201]), [
            a.text[:200] for a in answers
        ]
        order = Order.objects.get(pk=order_id)
        refunded = sum(Refund.objects.filter(order=order).values_list("amount_minor", flat=True))
        assert order.paid_minor == 3480
        assert refunded <= order.paid_minor

        # an edit racing the cancellation: an edit stored after it is impossible
        order_id = place(f"30{round_}5")
        answers = at_once(
            [
                partial(call, "PATCH", f"/api/orders/{order_id}/", EDITED),
                partial(call, "POST", f"/api/orders/{order_id}/cancel/"),
            ]
        )
        assert Order.objects.get(pk=order_id).status == "cancelled"
        edits = OrderEdit.objects.filter(order_id=order_id)
        patch = next(a for a in answers if a.request.method == "PATCH")
        assert (patch.status_code, edits.count()) in ((200, 1), (409, 0)), patch.text[:200]


# --- the emails through the real worker ----------------------------------------------------------


def _api(api_token: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {api_token}")
    return api


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("clean_queues")
def test_an_email_sent_after_later_edits_shows_the_total_of_its_own_version(api_token, mailsim, start_worker):
    """Each email shows the version its event saw (docs/orders.md) - its lines do, but its
    "Total" is `order.amount`, the order row as it is when the email goes. With the confirmation
    held while two edits happen, the confirmation lists the 34.80 order's lines under "Total:
    €54.20", and the first change's email says "New total: €44.30" above "Total: €54.20"."""
    mailsim.set_faults({"kind": "hold", "seconds": 3, "to_contains": "held-total@", "times": 1})
    start_worker(EMAIL_FOLLOWING_WAIT_SECONDS="1")
    api = _api(api_token)
    placed = api.post("/api/orders/", shop_order_body(customer_email="held-total@example.com"), format="json")
    assert placed.status_code == 201, placed.content
    order = Order.objects.get(id=placed.json()["id"])
    assert api.patch(f"/api/orders/{order.id}/", EDITED, format="json").status_code == 200
    assert api.patch(f"/api/orders/{order.id}/", EDITED_AGAIN, format="json").status_code == 200

    def finished():
        done = Notification.objects.filter(order=order, status__in=Notification.DONE_STATUSES).count()
        return done == 3 or None

    wait_until(finished, timeout=40, message="3 emails of the order finished")
    messages = sorted(
        (m for m in mailsim.messages() if m["to"] == ["held-total@example.com"]),
        key=lambda m: m["accepted_at"],
    )
    confirmation, first_change, second_change = messages
    assert "New total: €44.30 (was €34.80)" in first_change["text"]
    assert "Total: €54.20" in second_change["text"]
    assert "Total: €34.80" in confirmation["text"], confirmation["text"]
    assert "€54.20" not in confirmation["text"]
    assert "Total: €44.30" in first_change["text"]
    assert "€54.20" not in first_change["text"]
