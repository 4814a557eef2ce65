from django.urls import path

from api.orders import OrderChangeApi, OrderCreateApi, OrderDetailApi
from api.shipments import OrderShipmentApi
from orders.changes import order_cancel, order_pay

urlpatterns = [
    path("orders/", OrderCreateApi.as_view(), name="order-create"),
    path("orders/<uuid:order_id>/", OrderDetailApi.as_view(), name="order-detail"),
    path("orders/<uuid:order_id>/pay/", OrderChangeApi.as_view(change=order_pay), name="order-pay"),
    path("orders/<uuid:order_id>/cancel/", OrderChangeApi.as_view(change=order_cancel), name="order-cancel"),
    path("orders/<uuid:order_id>/shipments/", OrderShipmentApi.as_view(), name="order-shipments"),
]
