from django.urls import path

from orders.apis import OrderCreateApi, OrderDetailApi

urlpatterns = [
    path("orders/", OrderCreateApi.as_view(), name="order-create"),
    path("orders/<uuid:order_id>/", OrderDetailApi.as_view(), name="order-detail"),
]
