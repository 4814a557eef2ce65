"""Two refunds of 60 % of one order, sent at the same moment to the API under gunicorn (two web
processes, each request on its own connection, released together): the order's row lock lets
one in, and the other, seeing it, is refused as over what was paid. Exactly one refund, one
409, one email; never 120 % given back."""

from functools import partial

import pytest
import requests

from apiauth.services import api_token_create
from notifications.models import Notification
from orders.models import Refund
from tests.at_once import at_once
from tests.shop_order_bodies import shop_order_body

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]

SIXTY_PERCENT = 2088  # of the order's 3480 minor units


def test_two_refunds_of_sixty_percent_at_once_give_exactly_one_409(start_web):
    # given: the API in two web processes, and five paid orders of 34.80 EUR (five tries at the race)
    _, token = api_token_create(name="concurrent refunds")
    url = start_web(workers=2)
    headers = {"Authorization": f"Bearer {token}", "Connection": "close"}

    def post(path: str, body: dict) -> requests.Response:
        return requests.post(f"{url}{path}", json=body, headers=headers, timeout=20)

    for number in ("1001", "1002", "1003", "1004", "1005"):
        placed = post("/api/orders/", shop_order_body(number=number))
        assert placed.status_code == 201, placed.text
        order_id = placed.json()["id"]
        assert post(f"/api/orders/{order_id}/pay/", {}).status_code == 200
        refunds = f"/api/orders/{order_id}/refunds/"
        # when: two refunds of 60 % each, with their own refund ids, at the same moment
        answers = at_once(
            [
                partial(post, refunds, {"refund_id": refund_id, "amount": SIXTY_PERCENT})
                for refund_id in ("R-a", "R-b")
            ]
        )
        # then: one is taken, the other refused as over what is left of what was paid
        assert sorted(answer.status_code for answer in answers) == [201, 409], [a.text for a in answers]
        [refused] = [answer.json() for answer in answers if answer.status_code == 409]
        assert refused == {
            "error": "refund_exceeds_paid",
            "message": "This refund is 20.88 EUR, but only 13.92 EUR of the 34.80 EUR paid is not "
            "refunded yet.",
        }
        assert Refund.objects.filter(order_id=order_id).count() == 1
        assert Notification.objects.filter(order_id=order_id, kind="order_refund").count() == 1
