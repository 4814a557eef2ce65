"""What the admin screens of the email feature share."""

from django import forms
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.models import User
from django.http import HttpRequest


class StaffRequest(HttpRequest):
    """A request of the admin's: only an authenticated staff user gets past `admin_view`.
    (For the type checker only; the request itself is Django's.)"""

    user: User


class CommentActionForm(ActionForm):
    comment = forms.CharField(
        required=False,
        label="Comment or evidence (to reject, mark sent, send again, or lift a suppression)",
        max_length=2000,
    )
    new_address = forms.CharField(
        required=False, label="Corrected address (to correct and send)", max_length=254
    )
    accept_second_email_risk = forms.BooleanField(
        required=False,
        label="I accept that the customer may get this email twice (to send again under a new key)",
    )
