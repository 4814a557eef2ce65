from django.urls import path

from intake.views import shop_webhook_receive

urlpatterns = [
    path("shops/<slug:slug>/webhook", shop_webhook_receive, name="shop_webhook"),
]
