from django.urls import path

from api.customers import CustomerErasureApi, CustomerExportApi
from api.invoices import OrderDocumentApi, OrderInvoiceApi
from api.order_edits import OrderDetailApi
from api.orders import OrderChangeApi, OrderCreateApi
from api.parcel_news import ParcelNewsApi
from api.refunds import OrderCancelApi, OrderRefundApi
from api.shipments import OrderShipmentApi
from orders.changes import order_pay

urlpatterns = [
    path("orders/", OrderCreateApi.as_view(), name="order-create"),
    path("orders/<uuid:order_id>/", OrderDetailApi.as_view(), name="order-detail"),
    path("orders/<uuid:order_id>/pay/", OrderChangeApi.as_view(change=order_pay), name="order-pay"),
    path("orders/<uuid:order_id>/cancel/", OrderCancelApi.as_view(), name="order-cancel"),
    path("orders/<uuid:order_id>/shipments/", OrderShipmentApi.as_view(), name="order-shipments"),
    path(
        "orders/<uuid:order_id>/shipments/<path:shipment_id>/events/",
        ParcelNewsApi.as_view(),
        name="parcel-news",
    ),
    path("orders/<uuid:order_id>/refunds/", OrderRefundApi.as_view(), name="order-refunds"),
    path("orders/<uuid:order_id>/invoice.pdf", OrderInvoiceApi.as_view(), name="order-invoice"),
    path(  # <path:>: a number may be printed with a slash ("2026/INV-000001")
        "orders/<uuid:order_id>/documents/<path:number>.pdf",
        OrderDocumentApi.as_view(),
        name="order-document",
    ),
    path("customers/erasure/", CustomerErasureApi.as_view(), name="customer-erasure"),
    path("customers/export/", CustomerExportApi.as_view(), name="customer-export"),
]
