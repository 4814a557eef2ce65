"""The operators' screens in the admin, registered here (Django imports each app's admin
module): the reconciliation's reports and mismatches."""

from operations.reconciliation import admin as reconciliation

__all__ = ["reconciliation"]
