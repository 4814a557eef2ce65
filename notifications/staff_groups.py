"""The admin's groups of people (operations/reviewers.py, email_editors.py) are made the same
way: by a data migration, and again by their ensure function when tests have flushed the
tables."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when called: this module loads before the apps are ready
    from django.contrib.auth.models import Group


def staff_group_ensure(name: str, permissions: list[tuple[str, str]]) -> "Group":
    """Create the group with its permissions if missing."""
    from django.contrib.auth.models import Group, Permission

    group, _ = Group.objects.get_or_create(name=name)
    for app_label, codename in permissions:
        group.permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return group
