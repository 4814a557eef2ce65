"""The operators' periodic job (beat), the daily reconciliation: thin, like every task."""

from celery import shared_task

from operations.reconciliation.run import reconcile_run
from operations.task_names import RECONCILE


@shared_task(name=RECONCILE, ignore_result=True, soft_time_limit=600, time_limit=660)
def reconcile_task() -> str:
    # Repairing is safe: a republished event is a no-op for the inbox, one email for the provider.
    return reconcile_run(repair=True).summary
