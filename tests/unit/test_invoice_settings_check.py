"""A misspelt INVOICE_ISSUED_WHEN, or a number prefix that would break the PDF's file name, is
refused at start-up with what to write instead."""

from django.test import override_settings

from orders.checks import invoice_settings_check


def test_the_defaults_pass():
    assert invoice_settings_check(None) == []


@override_settings(INVOICE_ISSUED_WHEN="payed")
def test_a_misspelt_moment_is_refused_with_the_choices():
    [error] = invoice_settings_check(None)
    assert error.id == "orders.E001"
    for choice in ("'paid'", "'confirmed'", "'off'"):
        assert choice in error.msg


@override_settings(INVOICE_NUMBER_PREFIX="INV\\2026-", CREDIT_NOTE_NUMBER_PREFIX='C"N')
def test_a_prefix_with_a_backslash_or_a_quote_is_refused():
    errors = invoice_settings_check(None)
    assert [error.id for error in errors] == ["orders.E002", "orders.E002"]
    assert "INVOICE_NUMBER_PREFIX" in errors[0].msg


@override_settings(INVOICE_NUMBER_PREFIX="2026/INV-")
def test_a_year_and_a_slash_as_many_eu_shops_number_is_taken():
    assert invoice_settings_check(None) == []
