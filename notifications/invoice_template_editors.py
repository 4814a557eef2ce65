"""The "Invoice template editors" group: who may write new versions of the invoices' and credit
notes' PDF template, preview them and publish them (or go back to the shipped template) in the
admin. An invoice is a legal record, so this is apart from the "Email editors" group
(email_editors.py): neither group may do what the other does, and someone who does both is
in both. Created by a data migration; `invoice_template_editors_group_ensure` recreates it
(tests flush tables)."""

from typing import TYPE_CHECKING

from notifications.staff_groups import staff_group_ensure

if TYPE_CHECKING:
    from django.contrib.auth.models import Group

GROUP_NAME = "Invoice template editors"
GROUP_PERMISSIONS = [
    ("notifications", "view_emailtemplateversion"),
    ("notifications", "change_invoice_template"),
    ("notifications", "publish_invoice_template"),
]


def invoice_template_editors_group_ensure() -> "Group":
    return staff_group_ensure(GROUP_NAME, GROUP_PERMISSIONS)
