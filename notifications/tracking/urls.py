from django.urls import include, path

from notifications.tracking.views import resend_webhook

urlpatterns = [
    path("webhooks/resend/", resend_webhook, name="resend_webhook"),
    # Anymail's tracking webhooks: /webhooks/anymail/<esp>/tracking/ (postmark, brevo, mailgun…)
    path("webhooks/anymail/", include("anymail.urls")),
]
