from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from notifications.dashboard import dashboard_figures


@staff_member_required
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "notifications/dashboard.html", dashboard_figures())
