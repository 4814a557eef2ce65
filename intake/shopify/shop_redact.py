"""Shopify's *shop/redact*, read against the shop's deliveries: the one request whose body cannot
say which request it is. Its body is exactly {shop_id, shop_domain} (intake/shopify/privacy.py),
so a shop that uninstalls the app, installs it again and uninstalls it again is sent a second
one byte for byte the first, which must be carried out too; and a captured one posted again
under a fresh X-Shopify-Event-Id (a header Shopify does not sign) must not be.

- Its key (`shop_redact_key`): the body's digest, as every delivery's (intake/delivery_keys.py).
  A body received before is a new request only when the shop has delivered since the latest
  delivery with that body (it came back, and left again): its key is then the digest and
  ":after:" the id of the shop's latest delivery, so that its retry, or a copy posted after it,
  is a duplicate again. Otherwise it is a duplicate.
- When it is carried out (`shop_redact_doubt`): only once the shop has been quiet for
  SHOP_REDACT_QUIET, as it is when Shopify sends a genuine one. Checked when it is received and
  at each re-run a person asks for.

The shop's deliveries here are those of every topic but the privacy requests: those are the
app's compliance webhooks, which Shopify sends whether the app is installed or not (this very
request comes after the uninstall), so they are no sign that the shop came back."""

from datetime import UTC, datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from intake.delivery_keys import body_key
from intake.models import PlatformDelivery
from intake.shopify import PRIVACY_TOPICS
from shops.models import Shop

SHOP_REDACT = "shop/redact"
# Shopify sends shop/redact 48 hours after the app was uninstalled, when the shop's webhook
# subscriptions are gone; a delivery made before the uninstall may still be retried for up to 4
# hours. So a genuine one comes at least 44 hours after the shop's last delivery; 4 hours less
# again allow for Shopify's timing at either end.
SENT_AFTER_UNINSTALL = timedelta(hours=48)
RETRIED_FOR = timedelta(hours=4)
SHOP_REDACT_QUIET = SENT_AFTER_UNINSTALL - RETRIED_FOR - timedelta(hours=4)


def shop_redact_key(shop: Shop, body: bytes) -> str:
    """The event key of a shop/redact delivery of `shop` with these bytes."""
    digest = body_key(body)
    first = PlatformDelivery.objects.filter(shop=shop, event_key=digest).only("topic").first()
    if first is None or first.topic != SHOP_REDACT:
        return digest  # never received, or a duplicate of what these bytes first came as
    # The latest request keyed after the first, else the first. No index serves the prefix: the
    # shop's deliveries are scanned, only for a shop that sent a shop/redact before.
    latest = (
        PlatformDelivery.objects.filter(shop=shop, event_key__startswith=f"{digest}:after:")
        .order_by("-received_at")
        .only("event_key", "received_at")
        .first()
    ) or first
    came_back = (
        _shop_deliveries(shop)
        .filter(received_at__gt=latest.received_at)
        .order_by("-received_at", "-id")
        .only("id")
        .first()
    )
    return latest.event_key if came_back is None else f"{digest}:after:{came_back.id}"


def shop_redact_doubt(shop: Shop, topic: str) -> str | None:
    """Why a `topic` request of `shop` is not carried out now, in words; None when it may be."""
    if topic != SHOP_REDACT:
        return None
    now = timezone.now()
    last = (
        _shop_deliveries(shop)
        .filter(received_at__gt=now - SHOP_REDACT_QUIET)
        .order_by("-received_at")
        .values_list("received_at", flat=True)
        .first()
    )
    if last is None:
        return None
    quiet = hours(SHOP_REDACT_QUIET)
    return (
        f"The shop's last delivery came at {_utc(last)}, and this request was checked at "
        f"{_utc(now)}. Shopify sends shop/redact {hours(SENT_AFTER_UNINSTALL)} after the app is "
        "uninstalled, once the shop's webhooks are removed, so a genuine one comes after the shop "
        f"has been quiet for {quiet} at least: this "
        "one is unlikely to be genuine (a captured request posted again, say), and nothing is erased. "
        "Once you have checked that the app is uninstalled from the shop, and the shop has been quiet "
        f'for {quiet}, run it again with "Run the selected deliveries again".'
    )


def hours(span: timedelta) -> str:
    return f"{span.total_seconds() / 3600:.0f} hours"


def _utc(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _shop_deliveries(shop: Shop) -> QuerySet[PlatformDelivery]:
    return PlatformDelivery.objects.filter(shop=shop).exclude(topic__in=PRIVACY_TOPICS)
