"""Every platform a shop can be connected through has its row of intake/platforms.py, and every
row says how the admin tests a shop of it; the HMAC platforms sign as their own documentation
says, through the one helper (intake/hmac_signature.py)."""

import base64
import hashlib
import hmac

from intake import shopify, woocommerce
from intake.platforms import PLATFORMS
from shops.models import Shop


def test_every_platform_of_a_shop_has_its_row_and_no_row_is_of_another():
    assert set(PLATFORMS) == set(Shop.Platform.values)


def test_each_row_tests_a_shop_by_a_sample_or_by_a_connection_check_never_both():
    for name, row in PLATFORMS.items():
        assert (row.sample is None) != (row.connection_check is None), name


def test_a_row_whose_deliveries_its_secret_signs_has_a_sample_signed_with_it():
    for name, row in PLATFORMS.items():
        assert row.signs_with_secret == (row.sample is not None), name


def test_shopify_signs_with_the_secret_as_it_is_and_woocommerce_with_its_entities_decoded():
    # given: a secret holding an HTML entity, as WooCommerce's admin may store it
    body, secret = b'{"id": 1}', "a&amp;b-" + "7f3a9c" * 4

    def digest(key: str) -> str:
        return base64.b64encode(hmac.new(key.encode(), body, hashlib.sha256).digest()).decode()

    # then
    assert shopify.SIGNING.signature_of(body, secret) == digest(secret)
    assert woocommerce.SIGNING.signature_of(body, secret) == digest(secret.replace("&amp;", "&"))
    assert shopify.SIGNING.signature_valid(body=body, secret=secret, signature=f" {digest(secret)} ")
    assert not shopify.SIGNING.signature_valid(body=body, secret="", signature=digest(""))
    assert not woocommerce.SIGNING.signature_valid(body=body, secret=secret, signature="é" + digest(secret))
