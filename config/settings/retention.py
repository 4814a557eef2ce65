"""The retention job's settings, part of config/settings/base.py: how long each kind of row is
kept, and the features' steps of the job (messaging/retention.py), each period with its reason.
The job's schedule is beat's, with the others (pipeline.py)."""

from config.settings.environment import env

# How long published outbox events and inbox rows are kept (the retention job, hourly). Keep
# the inbox at least as long as the outbox, and longer than any redelivery can take.
OUTBOX_RETENTION_DAYS = env.int("OUTBOX_RETENTION_DAYS", default=7)
INBOX_RETENTION_DAYS = env.int("INBOX_RETENTION_DAYS", default=30)
RETENTION_BATCH_SIZE = env.int("RETENTION_BATCH_SIZE", default=5000)
# The features' own steps of the same job (messaging/retention.py), by name and dotted path.
RETENTION_STEPS = {
    "provider_events": "notifications.tracking.retention.provider_events_delete_expired",
    # A customer's personal data, kept no longer than its purpose (docs/personal-data.md says
    # why each period): cleared in batches of PERSONAL_DATA_RETENTION_BATCH_SIZE.
    "email_snapshots": "notifications.personal_data_retention.email_snapshots_clear",
    "attempt_details": "notifications.personal_data_retention.attempt_details_clear",
    "platform_delivery_bodies": "intake.personal_data.delivery_bodies_expire",
    "order_personal_data": "privacy.retention.orders_personal_data_expire",
    # Not personal data's period but the bookkeeping's: invoices and credit notes go once their
    # legal period is over (orders.models.invoices.RETENTION_YEARS after the year of issue),
    # in the same batches and pace as the steps above.
    "invoices_and_credit_notes": "orders.invoicing.retention.invoices_delete_expired",
    # Not a period: the shop platforms' erasure requests (Shopify's customers/redact,
    # shop/redact), carried out after they were stored and answered.
    "platform_erasure_requests": "intake.privacy_requests.platform_erasure_requests_apply",
    # The admin's expired sessions (`manage.py clearsessions`' work): a reviewer's remembered
    # search may be a customer's address, and nothing else deletes them.
    "expired_sessions": "operations.session_retention.expired_sessions_delete",
}
EMAIL_SNAPSHOT_RETENTION_DAYS = env.int("EMAIL_SNAPSHOT_RETENTION_DAYS", default=90)
ATTEMPT_DETAIL_RETENTION_DAYS = env.int("ATTEMPT_DETAIL_RETENTION_DAYS", default=30)
PLATFORM_DELIVERY_BODY_RETENTION_DAYS = env.int("PLATFORM_DELIVERY_BODY_RETENTION_DAYS", default=30)
ORDER_PERSONAL_DATA_RETENTION_DAYS = env.int("ORDER_PERSONAL_DATA_RETENTION_DAYS", default=365)
# Rows of large text per batch: each batch is a short transaction of its own, and the batches
# work at most this share of the time (infra/batched_update.py): unpaced, clearing a backlog
# slowed the orders placed meanwhile (docs/performance.md, "Decisions and why").
PERSONAL_DATA_RETENTION_BATCH_SIZE = env.int("PERSONAL_DATA_RETENTION_BATCH_SIZE", default=200)
PERSONAL_DATA_RETENTION_PACE = env.float("PERSONAL_DATA_RETENTION_PACE", default=0.05)
# Applied provider events (webhooks) are kept this long: at least the daily reconciliation's
# 7 days, which compares them with our sent emails (notifications.E007 refuses less).
PROVIDER_EVENT_RETENTION_DAYS = env.int("PROVIDER_EVENT_RETENTION_DAYS", default=30)
