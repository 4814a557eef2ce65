"""The email feature's periodic job (beat): thin, like every task."""

from celery import shared_task

from notifications.operations.reconcile import reconcile_run

RECONCILE = "notifications.reconcile"


@shared_task(name=RECONCILE, ignore_result=True, soft_time_limit=600, time_limit=660)
def reconcile_task() -> str:
    # Repairing is safe: a republished event is a no-op for the inbox, one email for the provider.
    return reconcile_run(repair=True).summary
