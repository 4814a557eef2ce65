"""The "Notification reviewers" group: who may use the operators' tools on notifications that
need a person. Created by the notifications app's data migrations (their permissions are its
models'); `reviewers_group_ensure` recreates it (tests flush tables)."""

from typing import TYPE_CHECKING

from notifications.staff_groups import staff_group_ensure

if TYPE_CHECKING:
    from django.contrib.auth.models import Group

GROUP_NAME = "Notification reviewers"
GROUP_PERMISSIONS = [
    ("notifications", "review_notification"),
    ("notifications", "view_notification"),
    ("notifications", "view_deliveryattempt"),
    ("notifications", "view_operatoraction"),
    ("messaging", "view_outboxevent"),
    ("messaging", "view_deadletterrecord"),
    ("notifications", "view_reconcilereport"),
    ("orders", "view_order"),
    ("notifications", "view_providerevent"),
    ("notifications", "view_suppression"),
    ("notifications", "lift_suppression"),
    ("notifications", "view_retiredkey"),
    ("notifications", "view_addresscorrection"),
    ("notifications", "view_reconcilemismatch"),
    ("notifications", "change_reconcilemismatch"),
    ("notifications", "pause_provider"),
    ("intake", "view_platformdelivery"),
    ("intake", "view_unusabledelivery"),
    ("intake", "rerun_platformdelivery"),
]


def reviewers_group_ensure() -> "Group":
    return staff_group_ensure(GROUP_NAME, GROUP_PERMISSIONS)
