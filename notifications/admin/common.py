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
        required=False, label="Comment (to reject, or to lift a suppression)", max_length=2000
    )
