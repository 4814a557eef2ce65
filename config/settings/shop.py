"""The shop as its emails and invoices present it, when an order belongs to no connected shop
(a connected shop's own fields replace these one by one: shops/models.py), and which of the
emails it may choose it sends."""

from config.settings.environment import env, switch

SHOP_NAME = env("SHOP_NAME", default="Example Shop")
SHOP_URL = env("SHOP_URL", default="https://shop.example.com")  # every link in an email is absolute
SHOP_LOGO_URL = env("SHOP_LOGO_URL", default="https://shop.example.com/static/logo.png")
SHOP_PRIMARY_COLOR = env("SHOP_PRIMARY_COLOR", default="#1f6feb")  # buttons and the header rule
SHOP_TEXT_COLOR = env("SHOP_TEXT_COLOR", default="#1f2328")
SHOP_FOOTER_ADDRESS = env(
    "SHOP_FOOTER_ADDRESS", default="Example Shop GmbH, Hauptstrasse 1, 10115 Berlin, Germany"
)
SHOP_SUPPORT_EMAIL = env("SHOP_SUPPORT_EMAIL", default="support@shop.example.com")
# What an order confirmation must carry in the EU (Consumer Rights Directive 2011/83/EU,
# art. 6(1) and 8(7); docs/email-content.md): the trader's identity, geographic address and
# telephone, the terms and conditions, the right of withdrawal (at least 14 days) and the model
# withdrawal form. Checked at start-up (notifications.E005).
SHOP_LEGAL_NAME = env("SHOP_LEGAL_NAME", default="Example Shop GmbH")
SHOP_LEGAL_ADDRESS = env("SHOP_LEGAL_ADDRESS", default="Hauptstrasse 1, 10115 Berlin, Germany")
SHOP_PHONE = env("SHOP_PHONE", default="+49 30 1234567")
SHOP_REGISTER = env(
    "SHOP_REGISTER", default="Amtsgericht Berlin-Charlottenburg HRB 123456, VAT ID DE123456789"
)
# The seller's VAT identification number, printed on every invoice and credit note (Directive
# 2006/112/EC art. 226(3)); a connected shop's own replaces it.
SHOP_VAT_NUMBER = env("SHOP_VAT_NUMBER", default="DE123456789")
# When an order's invoice is issued (orders/invoicing/issue.py): "paid" (when its payment is
# taken), "confirmed" (when it is placed) or "off". Its number: the prefix, then the series'
# next number, one unbroken sequence per shop shared by invoices and credit notes.
INVOICE_ISSUED_WHEN = env("INVOICE_ISSUED_WHEN", default="paid")
INVOICE_NUMBER_PREFIX = env("INVOICE_NUMBER_PREFIX", default="INV-")
CREDIT_NOTE_NUMBER_PREFIX = env("CREDIT_NOTE_NUMBER_PREFIX", default="CN-")
SHOP_TERMS_URL = env("SHOP_TERMS_URL", default="https://shop.example.com/terms")
SHOP_WITHDRAWAL_URL = env("SHOP_WITHDRAWAL_URL", default="https://shop.example.com/withdrawal")
SHOP_WITHDRAWAL_DAYS = env.int("SHOP_WITHDRAWAL_DAYS", default=14)
# Whether a parcel's "in transit" news is an email too (orders/parcel_progress.py): at most one
# per parcel, before the customer hears of any later step. Off, it only shows in the API and
# the admin. Read when the news arrives: news kept before a change keeps what it did.
PARCEL_IN_TRANSIT_EMAIL = switch("PARCEL_IN_TRANSIT_EMAIL", default=False)
