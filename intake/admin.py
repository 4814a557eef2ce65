"""The intake's screens in the admin, registered here (Django imports each app's admin module):
the connected shops' page (intake/shop_admin.py) and the platforms' deliveries
(intake/delivery_admin.py). The shop's page is the intake's, though the model is shops/' (its
list keeps the URLs /admin/shops/shop/...): connecting a shop is its platform's business, the
webhook's topics, its signing key, a test delivery, and the platforms live here, above shops/,
which every order of a shop needs (orders/, notifications/) and so imports no platform."""

from intake import delivery_admin, shop_admin

__all__ = ["delivery_admin", "shop_admin"]
