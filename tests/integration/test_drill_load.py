"""The drill's order stream (tools/drill/load.py) against the real API under gunicorn: it does
all its work, refunds included, as a careful shop would; each order it refunds it has paid
first (the API refunds only what was paid), with one pay or cancel per order at most, as the
drill's throttle is sized for."""

import pytest

from apiauth.services import api_token_create
from orders.models import Order, Refund
from tools.drill.load import OrderStream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("clean_queues")]


def test_the_drills_stream_pays_each_order_it_refunds_and_gives_up_nothing(start_web):
    # given: the API, and a stream whose every shop's order (not cancelled) ships
    _, token = api_token_create(name="drill load")
    url = start_web()
    # when
    result = OrderStream(url, token, orders=24, rate=50, seed=7, shipped_share=1.0).run()
    # then: every request done, and the refunds it made are stored on paid orders
    assert result.complete, result.shortfall()
    refunded = set(result.refunds.values())
    assert len(refunded) >= 3
    assert refunded <= result.paid
    assert Refund.objects.filter(order_id__in=refunded).count() == len(refunded)
    assert not Order.objects.filter(id__in=refunded, paid_at__isnull=True).exists()
    assert not result.paid & result.cancelled  # at most one pay or cancel per order
