from django.urls import path

from notifications.tracking.views import delivery_webhook_receive

urlpatterns = [
    # Only the configured provider's webhook answers here (/webhooks/resend/,
    # /webhooks/anymail/<esp>/tracking/, …); every other path under /webhooks/ is a 404.
    path("webhooks/<path:route>", delivery_webhook_receive, name="delivery_webhook"),
]
