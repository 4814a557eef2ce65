"""Test data made the way the product makes it (factory_boy).

- `OrderFactory`: an order placed through `orders.services.order_create`, so its
  `order.created` event is in the outbox and its confirmation is pending, in one commit, exactly
  as in production; the event is published on commit. In a transactional test that publish
  goes to the run's vhost (ask for `broker`); inside the test transaction nothing commits, and
  the `order` fixture (tests/integration/conftest.py) also captures the publish. `paid=True`:
  then paid as a shop pays it (`orders.changes.order_pay`, with its `order.paid` event and
  `paid_at`), as an order must be before it takes a refund.
- `UnpublishedOrderFactory`: the same rows, left by a process that died between the commit and
  its on-commit publish: only the relay's sweep will publish the event.
- `NotificationFactory`: an order's notification brought to the state a test needs (traits
  `failed`, `needs_review`, `leased`; any field may be given).
- `DeliveryAttemptFactory`: one call to the provider, counted on its notification as a claim
  counts it, to the order's address; without an outcome it is a call whose worker died before
  it saw the answer.

Where placing the order is itself the behaviour under test (the cost per order, the API's
creation, the crash points, the relay's on-commit hook), the tests call `order_create`.
"""

import uuid
from datetime import timedelta

import factory
from django.contrib.auth.models import Group, Permission, User
from django.db import transaction
from django.utils import timezone
from factory.django import DjangoModelFactory

from infra.keyed_hash import address_hash
from messaging.models import OutboxEvent
from messaging.outbox import outbox_event_build
from messaging.registry import event_type_get
from notifications.content.overrides import override_draft_create, override_publish
from notifications.content.snapshot import snapshot_exists, snapshot_take
from notifications.content.sources import shipped_source
from notifications.delivery.claims import Claim, ClaimRequest, notification_claims
from notifications.events import EMAIL_KIND_OF_EVENT
from notifications.models import DeliveryAttempt, EmailTemplateVersion, Notification
from notifications.providers.catalogue import mail_provider
from operations.reviewers import GROUP_NAME
from orders.changes import order_pay
from orders.events import ORDER_CREATED
from orders.models import Order
from orders.selectors import order_content
from orders.services import order_create

EVENT_OF_EMAIL_KIND = {kind: event_type for event_type, kind in EMAIL_KIND_OF_EVENT.items()}


class OrderFactory(DjangoModelFactory[Order]):
    class Meta:
        model = Order

    customer_email = factory.Sequence(lambda n: f"customer{n}@example.com")
    amount = "5.00"
    currency = "EUR"

    @classmethod
    def _create(cls, model_class, *args, paid: bool = False, **kwargs) -> Order:
        order = order_create(**kwargs)
        if paid:
            order = order_pay(order_id=order.id, api_token=order.api_token).order
        return order


class UnpublishedOrderFactory(OrderFactory):
    """What `order_create` leaves when its process dies after the commit, before the publish:
    the order, its pending confirmation and its event, unpublished and claimed by nobody.

    `order_create` cannot be stopped there from a test (its durable transaction cannot be
    wrapped, and in a transactional test its commit runs the publish), so the same rows are
    written with the outbox's own builder and the event type's record hook."""

    @classmethod
    def _create(cls, model_class, *args, **kwargs) -> Order:
        event_type = event_type_get(ORDER_CREATED)
        with transaction.atomic():
            order = model_class.objects.create(**kwargs)
            event = outbox_event_build(event_type=event_type, aggregate_id=order.id)
            event.save(force_insert=True)
            record_hook = event_type.record_hook_function()
            assert record_hook is not None  # the email events create their notification
            record_hook(event)  # the pending confirmation
        return order


class NotificationFactory(DjangoModelFactory[Notification]):
    """The notification `order_create` (or `order_cancel`) made pending for `order`, with the
    fields given written onto it: `NotificationFactory.create(order=order, failed=True)`. Without an
    order, a new one is placed through `OrderFactory`."""

    class Meta:
        model = Notification

    order = factory.SubFactory(OrderFactory)
    kind = Notification.Kind.ORDER_CONFIRMATION

    class Params:
        # The provider refused it: the reason a reviewer reads, as the handler writes it.
        failed = factory.Trait(
            status=Notification.Status.FAILED,
            error_class="permanent",
            last_error=factory.LazyAttribute(
                lambda n: (
                    f"The mail provider refused the email to {n.order.customer_email} (HTTP 422): "
                    "mailbox unavailable"
                )
            ),
        )
        # Nobody can tell whether it went out: a person decides.
        needs_review = factory.Trait(
            status=Notification.Status.NEEDS_REVIEW,
            error_class="needs_review",
            last_error=(
                "The connection to the mail provider broke after the email was handed over, "
                "so we cannot tell whether it was sent."
            ),
        )
        # Being sent by another worker, whose lease runs for another 30 seconds.
        leased = factory.Trait(
            status=Notification.Status.SENDING,
            lease_owner="other-host:4242",
            lease_expires_at=factory.LazyFunction(lambda: timezone.now() + timedelta(seconds=30)),
        )

    @classmethod
    def _create(cls, model_class, *args, order, kind, **fields) -> Notification:
        notifications = model_class.objects.filter(order=order, kind=kind)
        if fields:
            notifications.update(**fields)
        return notifications.get()


class DeliveryAttemptFactory(DjangoModelFactory[DeliveryAttempt]):
    """The next attempt of `notification`, for the order's event of its kind; `attempt_count`
    and `first_attempt_at` follow, as when a worker claims it. An attempt without an outcome
    never finished: its worker died during the call."""

    class Meta:
        model = DeliveryAttempt

    notification = factory.SubFactory(NotificationFactory)
    event_id = factory.LazyAttribute(
        lambda a: OutboxEvent.objects.values_list("id", flat=True).get(
            aggregate_id=str(a.notification.order_id), event_type=EVENT_OF_EMAIL_KIND[a.notification.kind]
        )
    )
    number = factory.LazyAttribute(lambda a: a.notification.attempts.count() + 1)
    worker = "w"
    started_at = factory.LazyFunction(timezone.now)
    recipient = factory.LazyAttribute(lambda a: a.notification.order.customer_email)  # as the claim writes
    recipient_hash = factory.LazyAttribute(lambda a: address_hash(a.recipient) if a.recipient else "")
    outcome = ""
    finished_at = factory.LazyAttribute(lambda a: a.started_at if a.outcome else None)

    @classmethod
    def _create(cls, model_class, *args, **kwargs) -> DeliveryAttempt:
        attempt = super()._create(model_class, *args, **kwargs)
        notification = Notification.objects.select_related("order").get(pk=attempt.notification_id)
        notification.attempt_count += 1
        notification.first_attempt_at = notification.first_attempt_at or attempt.started_at
        fields = ["attempt_count", "first_attempt_at"]
        if not snapshot_exists(notification):  # the first claim renders the email and stores it
            content = order_content(notification.order, notification.content_version)
            fields += snapshot_take(
                notification, notification.order, content=content, version=None, now=attempt.started_at
            )
        notification.save(update_fields=fields)
        return attempt


def confirmation_claimed(order: Order) -> Claim:
    """The order's confirmation in the middle of its provider call: claimed by a worker
    ("w"), with its lease and a started attempt, as the handler leaves it before the call."""
    request = ClaimRequest(order.id, event_type_get(ORDER_CREATED), uuid.uuid4(), worker="w")
    [claim] = notification_claims([request], provider=mail_provider())
    assert isinstance(claim, Claim), claim
    return claim


def staff_user(username: str, *, reviewer: bool, otherwise_may_view: str = "view_notification") -> User:
    """A staff user of the admin: in the reviewers group, or else with only the view
    permission `otherwise_may_view` (sees the screen, gets no actions)."""
    user = User.objects.create_user(username, password="pw", is_staff=True)
    if reviewer:
        user.groups.add(Group.objects.get(name=GROUP_NAME))
    else:
        user.user_permissions.add(Permission.objects.get(codename=otherwise_may_view))
    return user


def published_wording(kind: str, locale: str, *, subject: str) -> EmailTemplateVersion:
    """A wording override published for `kind` in `locale`: the shipped text and HTML with
    another subject, as an email editor would make it in the admin."""
    shipped = shipped_source(kind, locale)
    draft = override_draft_create(
        kind=kind,
        locale=locale,
        subject=subject,
        text=shipped.text,
        html=shipped.html,
        comment="a test's wording",
        author=None,
        author_name="test",
    )
    return override_publish(draft.pk, by_name="test")
