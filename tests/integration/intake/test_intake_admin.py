"""Connected shops and their deliveries in the admin: a shop's secret is typed once and never
shown back; its page says the webhook address and topics to register; a reviewer sees the
deliveries that could not be used, with their reasons, and runs them again, audited."""

import copy
import hashlib

import pytest

from intake.models import PlatformDelivery
from intake.saleor import signature
from notifications.models import OperatorAction
from shops.models import Shop
from tests import shopify_payloads as shopify
from tests.connected_shop import tea_house_create
from tests.factories import staff_user
from tests.saleor_keys import SaleorKeys

pytestmark = pytest.mark.django_db
UNUSABLE = "/admin/intake/unusabledelivery/"


def test_a_shop_is_added_with_its_secret_which_is_never_shown_back(admin_client):
    # when
    response = admin_client.post(
        "/admin/shops/shop/add/",
        {
            "name": "Tea House",
            "slug": "tea-house",
            "platform": "shopify",
            "domain": shopify.SHOP_DOMAIN,
            "webhook_secret": shopify.CLIENT_SECRET,
            "active": "on",
        },
    )
    # then
    assert response.status_code == 302, response.content.decode()[:2000]
    shop = Shop.objects.get()
    assert shop.webhook_secret == shopify.CLIENT_SECRET
    page = admin_client.get(f"/admin/shops/shop/{shop.pk}/change/").content.decode()
    listing = admin_client.get("/admin/shops/shop/").content.decode()
    for html in (page, listing):
        assert shopify.CLIENT_SECRET not in html
        assert shopify.CLIENT_SECRET[:12] not in html
        assert "…" + shopify.CLIENT_SECRET[-4:] in html
    assert "http://testserver/shops/tea-house/webhook" in page
    for topic in ("orders/create", "fulfillments/create", "refunds/create", "customers/redact"):
        assert f"<code>{topic}</code>" in page


def test_staff_who_may_only_view_a_shop_see_no_secret_of_it(client):
    # given: a WooCommerce store with its webhook secret and REST key, made here (no literal)
    secret, key, key_secret = (f"{name}-{'7f3a9c' * 6}" for name in ("whsec", "ck", "cs"))
    shop = Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform="woocommerce",
        domain="https://tea-house.example",
        webhook_secret=secret,
        api_key=key,
        api_secret=key_secret,
    )
    client.force_login(staff_user("vera", reviewer=False, otherwise_may_view="view_shop"))
    # when
    response = client.get(f"/admin/shops/shop/{shop.pk}/change/")
    # then: the page is hers to read, with the hint and nothing more
    assert response.status_code == 200
    page = response.content.decode()
    assert "…" + secret[-4:] in page
    for value in (secret, key, key_secret):
        assert value not in page
        assert value[:12] not in page


def test_a_store_s_new_address_takes_its_rest_key_only_typed_again(client):
    # given: a WooCommerce store with its REST key, and staff who may change the shop but never
    # see the key; the nightly backfill sends the key to the store's address
    key, key_secret = (hashlib.sha256(name).hexdigest()[:27] for name in (b"ck", b"cs"))
    shop = Shop.objects.create(
        slug="tea-house-woo",
        name="Tea House",
        platform="woocommerce",
        domain="https://tea-house.example",
        webhook_secret=hashlib.sha256(b"whsec").hexdigest(),
        api_key=key,
        api_secret=key_secret,
    )
    client.force_login(staff_user("olga", reviewer=False, otherwise_may_view="change_shop"))
    form = {
        "name": "Tea House",
        "slug": "tea-house-woo",
        "platform": "woocommerce",
        "domain": "https://olgas-server.example",
        "webhook_secret": "",
        "api_key": "",
        "api_secret": "",
        "active": "on",
    }
    # when: the address changes with the key left as stored: empty, blanks typed in (the fields
    # strip them, and an empty field keeps the stored value), or only one of the two typed
    blank, other = " ", key_secret[::-1]
    for typed in ({}, {"api_key": blank, "api_secret": blank}, {"api_key": other}, {"api_secret": other}):
        refused = client.post(f"/admin/shops/shop/{shop.pk}/change/", form | typed)
        # then: nothing changes, and the page says why
        assert refused.status_code == 200, typed
        page = refused.content.decode()
        assert "The store&#x27;s address changed: type its REST API key and secret again" in page
        shop.refresh_from_db()
        assert (shop.domain, shop.api_key, shop.api_secret) == ("https://tea-house.example", key, key_secret)
    # and with the key typed again (whoever types it knows it), the new address is saved
    typed = {**form, "api_key": key[::-1], "api_secret": key_secret[::-1]}
    assert client.post(f"/admin/shops/shop/{shop.pk}/change/", typed).status_code == 302
    shop.refresh_from_db()
    assert (shop.domain, shop.api_key) == ("https://olgas-server.example", key[::-1])


def test_a_second_shop_at_the_same_address_is_refused(admin_client):
    # given: a Saleor shop; its keys sign every delivery of that Saleor
    Shop.objects.create(
        slug="tea-saleor", name="Tea House", platform="saleor", domain="https://tea.saleor.example/graphql/"
    )
    # when: another shop names the same Saleor, spelled a little differently
    response = admin_client.post(
        "/admin/shops/shop/add/",
        {
            "name": "Other House",
            "slug": "other-saleor",
            "platform": "saleor",
            "domain": "https://TEA.saleor.example/graphql",
            "active": "on",
        },
    )
    # then
    assert response.status_code == 200
    assert "Another connected shop is at this address" in response.content.decode()
    # nor at another path of the same Saleor, whose keys are its host's
    elsewhere = admin_client.post(
        "/admin/shops/shop/add/",
        {
            "name": "Other House",
            "slug": "other-saleor",
            "platform": "saleor",
            "domain": "https://tea.saleor.example/other/graphql/",
            "active": "on",
        },
    )
    assert "Another connected shop is at this address" in elsewhere.content.decode()
    assert Shop.objects.count() == 1


def test_saving_a_shop_with_the_secret_left_empty_keeps_it(admin_client):
    # given
    shop = tea_house_create()
    # when
    response = admin_client.post(
        f"/admin/shops/shop/{shop.pk}/change/",
        {
            "name": "Tea House Berlin",
            "slug": "tea-house",
            "platform": "shopify",
            "domain": shopify.SHOP_DOMAIN,
            "webhook_secret": "",
            "active": "on",
        },
    )
    # then
    assert response.status_code == 302
    shop.refresh_from_db()
    assert (shop.name, shop.webhook_secret) == ("Tea House Berlin", shopify.CLIENT_SECRET)


def test_a_new_shop_without_a_secret_is_refused_with_the_reason(admin_client):
    response = admin_client.post(
        "/admin/shops/shop/add/",
        {
            "name": "Tea House",
            "slug": "tea-house",
            "platform": "shopify",
            "domain": shopify.SHOP_DOMAIN,
            "webhook_secret": "",
            "active": "on",
        },
    )
    assert response.status_code == 200
    assert "A new shop needs its secret" in response.content.decode()
    assert not Shop.objects.exists()


def test_a_reviewer_sees_what_could_not_be_used_and_runs_it_again_audited(client):
    # given: a refund of more than was paid, kept on the list, and an order that was used
    shop = tea_house_create()
    for topic, payload in (("orders/create", shopify.ORDER), ("refunds/create", _refund_of(80))):
        body = shopify.body_of(payload)
        client.post(
            "/shops/tea-house/webhook",
            body,
            content_type="application/json",
            **shopify.signed_headers(body, topic=topic),
        )
    unusable = PlatformDelivery.objects.get(outcome="could_not_use")
    client.force_login(staff_user("rita", reviewer=True))
    # when
    listing = client.get(UNUSABLE).content.decode()
    response = client.post(
        UNUSABLE, {"action": "run_again", "_selected_action": [unusable.pk], "index": 0}, follow=True
    )
    # then
    assert "refunds/create" in listing
    assert "This refund is 80.00 EUR" in listing
    assert "orders/create" not in listing  # used: not on this list
    assert "Ran again: 1 could not use." in response.content.decode()
    unusable.refresh_from_db()
    assert unusable.runs == 2
    [audit] = OperatorAction.objects.filter(action="rerun_delivery")
    assert (audit.actor_name, audit.result) == ("rita", "could_not_use")
    assert audit.comment == f"{shop.slug} refunds/create {unusable.event_key}"


def test_staff_without_the_permission_see_the_list_without_the_action(client):
    # given: one delivery that could not be used
    shop = tea_house_create()
    PlatformDelivery.objects.create(
        shop=shop,
        event_key="evt-1",
        topic="orders/create",
        body="{}",
        outcome="could_not_use",
        reason="The payload has no id.",
    )
    # when
    client.force_login(staff_user("rita", reviewer=True))
    reviewer = client.get(UNUSABLE).content.decode()
    client.force_login(staff_user("sam", reviewer=False, otherwise_may_view="view_unusabledelivery"))
    viewer = client.get(UNUSABLE).content.decode()
    # then
    assert "The payload has no id." in reviewer
    assert "The payload has no id." in viewer
    assert 'value="run_again"' in reviewer
    assert 'value="run_again"' not in viewer


def _unusable_deliveries(count: int) -> list[PlatformDelivery]:
    shop = tea_house_create()
    return [
        PlatformDelivery.objects.create(
            shop=shop, event_key=f"evt-{n}", topic="orders/create", body="{}", outcome="could_not_use"
        )
        for n in range(count)
    ]


def test_run_again_over_more_than_the_cap_is_refused_whole(client, settings):
    # given: "select all" over more deliveries than an action takes
    settings.REVIEW_ACTION_MAX_NOTIFICATIONS = 3
    deliveries = _unusable_deliveries(4)
    client.force_login(staff_user("rita", reviewer=True))
    # when
    response = client.post(
        UNUSABLE,
        {"action": "run_again", "select_across": "1", "_selected_action": [deliveries[0].pk], "index": 0},
        follow=True,
    )
    # then
    page = response.content.decode()
    assert "Nothing done: 4 deliveries are selected, and an action takes at most 3 at a time" in page
    assert set(PlatformDelivery.objects.values_list("runs", flat=True)) == {1}
    assert not OperatorAction.objects.exists()
    assert (
        "Run the selected deliveries again (after a fix; at most 3 at a time)"
        in client.get(UNUSABLE).content.decode()
    )


def _refund_of(euros: int) -> dict:
    refund = copy.deepcopy(shopify.REFUND)
    refund["transactions"][0]["amount"] = f"{euros}.00"
    return refund


@pytest.mark.parametrize("platform", ["shopify", "woocommerce"])
def test_a_test_delivery_goes_through_the_real_intake_and_its_emails_to_the_asker(client, platform):
    # given
    shop = Shop.objects.create(
        slug="tea-house",
        name="Tea House",
        platform=platform,
        domain=shopify.SHOP_DOMAIN if platform == "shopify" else "https://tea-house.example",
        webhook_secret=shopify.CLIENT_SECRET,
    )
    user = staff_user("olga", reviewer=False, otherwise_may_view="change_shop")
    user.email = "olga@tea-house.example"
    user.save()
    client.force_login(user)
    page = client.get(f"/admin/shops/shop/{shop.pk}/change/").content.decode()
    # when
    response = client.post(f"/admin/shops/shop/{shop.pk}/test-delivery/", follow=True)
    # then
    assert f'action="/admin/shops/shop/{shop.pk}/test-delivery/"' in page
    assert "Send a test delivery" in page
    delivery = PlatformDelivery.objects.get(shop=shop)
    assert (delivery.outcome, delivery.reason) == ("used", "order created; paid")
    assert delivery.order is not None
    assert delivery.order.customer_email == "olga@tea-house.example"
    assert ("order_confirmation", "pending") in [
        (n.kind, n.status) for n in delivery.order.notifications.all()
    ]
    assert "The test delivery was received: used (order created; paid)." in response.content.decode()
    [audit] = OperatorAction.objects.filter(action="test_send")
    assert (audit.actor_name, audit.result) == ("olga", "used")


def test_a_test_delivery_is_refused_without_the_askers_address_or_by_get(client):
    shop = tea_house_create()
    client.force_login(staff_user("olga", reviewer=False, otherwise_may_view="change_shop"))
    by_get = client.get(f"/admin/shops/shop/{shop.pk}/test-delivery/")
    response = client.post(f"/admin/shops/shop/{shop.pk}/test-delivery/", follow=True)
    assert by_get.status_code == 403
    assert "Your admin user has no email address" in response.content.decode()
    assert not PlatformDelivery.objects.exists()


def test_a_saleor_shop_is_added_without_a_secret_and_its_page_gives_the_query_and_checks_the_keys(
    admin_client,
):
    # given: the shop's Saleor, publishing its key
    signature.keys_forget()
    keys = SaleorKeys()
    try:
        # when
        added = admin_client.post(
            "/admin/shops/shop/add/",
            {
                "name": "Tea House",
                "slug": "tea-saleor",
                "platform": "saleor",
                "domain": keys.api_url,
                "active": "on",
            },
        )
        shop = Shop.objects.get()
        page = admin_client.get(f"/admin/shops/shop/{shop.pk}/change/").content.decode()
        checked = admin_client.post(f"/admin/shops/shop/{shop.pk}/test-delivery/", follow=True)
        keys.status = 503
        failed = admin_client.post(f"/admin/shops/shop/{shop.pk}/test-delivery/", follow=True)
    finally:
        keys.close()
        signature.keys_forget()
    # then
    assert added.status_code == 302
    assert shop.webhook_secret == ""
    for event in ("ORDER_CREATED", "ORDER_FULLY_PAID", "FULFILLMENT_CREATED", "ORDER_REFUNDED"):
        assert f"<code>{event}</code>" in page
    assert "fragment OrderForEmails on Order {" in page
    assert "Check the connection" in page
    assert "Send a test delivery" not in page
    assert f"publishes 1 key(s) ({keys.kid})" in checked.content.decode()
    assert "The shop&#x27;s keys could not be fetched" in failed.content.decode()
    assert not PlatformDelivery.objects.exists()
