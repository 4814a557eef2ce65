"""The "Notification reviewers" group: who may act on notifications that need a person.
Created by a data migration; `reviewers_group_ensure` recreates it (tests flush tables)."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when called: this module loads before the apps are ready
    from django.contrib.auth.models import Group, Permission

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
]


def reviewers_group_ensure(
    group_model: "type[Group] | None" = None, permission_model: "type[Permission] | None" = None
) -> "Group":
    """Create the group with its permissions if missing (models can be a migration's)."""
    from django.contrib.auth import models as auth_models

    group_model = group_model or auth_models.Group
    permission_model = permission_model or auth_models.Permission
    group, _ = group_model.objects.get_or_create(name=GROUP_NAME)
    for app_label, codename in GROUP_PERMISSIONS:
        permission = permission_model.objects.get(content_type__app_label=app_label, codename=codename)
        group.permissions.add(permission)
    return group
