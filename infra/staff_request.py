"""A request of the admin's, as the type checker should see it: only an authenticated staff
user gets past `admin_view`, so `request.user` is a User. (The request itself is Django's.)"""

from django.contrib.auth.models import User
from django.http import HttpRequest


class StaffRequest(HttpRequest):
    user: User
