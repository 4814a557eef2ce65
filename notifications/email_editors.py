"""The "Email editors" group: who may write new wording for the customer emails, preview it
and publish it (or go back to the shipped templates) in the admin; not the invoice template,
a legal record's layout (invoice_template_editors.py). Created by a data migration;
`email_editors_group_ensure` recreates it (tests flush tables)."""

from typing import TYPE_CHECKING

from notifications.staff_groups import staff_group_ensure

if TYPE_CHECKING:
    from django.contrib.auth.models import Group

GROUP_NAME = "Email editors"
GROUP_PERMISSIONS = [
    ("notifications", "view_emailtemplateversion"),
    ("notifications", "add_emailtemplateversion"),
    ("notifications", "publish_emailtemplateversion"),
]


def email_editors_group_ensure() -> "Group":
    return staff_group_ensure(GROUP_NAME, GROUP_PERMISSIONS)
