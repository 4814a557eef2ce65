"""The "Personal data officers" group: who may export or erase one customer's personal data
in the admin (the page "A customer's personal data") and see the erasures done. Created by a
data migration; `officers_group_ensure` recreates it (tests flush tables). The reviewers are
not in it: an erasure cannot be undone, so it is given to people by name."""

from typing import TYPE_CHECKING

from notifications.staff_groups import staff_group_ensure

if TYPE_CHECKING:
    from django.contrib.auth.models import Group

GROUP_NAME = "Personal data officers"
GROUP_PERMISSIONS = [
    ("privacy", "view_erasure"),
    ("privacy", "view_export"),
    ("privacy", "export_customer"),
    ("privacy", "erase_customer"),
]


def officers_group_ensure() -> "Group":
    return staff_group_ensure(GROUP_NAME, GROUP_PERMISSIONS)
