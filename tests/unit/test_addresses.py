"""An email address as this service compares it (infra/addresses.py): its domain under IDNA
2008 with UTS #46's non-transitional processing, as mail software resolves a domain today. Two
domains stay two (ß is not ss, a final sigma is no inner one), two spellings of one domain stay
one (either case, Unicode or ASCII, full-width letters, a soft hyphen), a domain IDNA 2008
refuses never raises; and the forms an address may be written in, searched for in words, hold
it as it was written."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from infra.addresses import address_comparable, address_forms

FULL_WIDTH = "\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45"  # "example" in full-width letters


@pytest.mark.parametrize(
    ("written", "comparable"),
    [
        ("ada@straße.de", "ada@xn--strae-oqa.de"),  # ß: a domain of its own (IDNA 2003: strasse.de)
        (" Ada@STRAẞE.de ", "ada@xn--strae-oqa.de"),  # the capital sharp s is its upper case
        ("ada@ελλάς.gr", "ada@xn--hxarsa0b.gr"),  # a final sigma (IDNA 2003: an inner one, xn--hxarsa5b.gr)
        ("ada@münchen.de", "ada@xn--mnchen-3ya.de"),
        ("Ada@XN--MNCHEN-3YA.DE", "ada@xn--mnchen-3ya.de"),
        (f"ada@{FULL_WIDTH}.com", "ada@example.com"),  # full-width letters: UTS #46 maps them
        ("ada@exa\u00admple.com", "ada@example.com"),  # a soft hyphen: UTS #46 ignores it
        ("ada@☃.net", "ada@xn--n3h.net"),  # a symbol IDNA 2008 refuses: in plain Punycode
        ("ada@exa\u200dmple.com", "ada@xn--example-j06c.com"),  # a joiner out of place, refused
        ("ada@a..b", "ada@a..b"),  # an empty label: as written
        ("ada@" + "a" * 64 + ".com", "ada@" + "a" * 64 + ".com"),  # a label too long: as written
        ("ada@[10.0.0.5]", "ada@[10.0.0.5]"),
    ],
)
def test_an_address_compares_with_its_domain_in_the_ascii_form_idna_2008_gives_it(written, comparable):
    assert address_comparable(written) == comparable


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("ada@straße.de", "ada@strasse.de"),
        ("ada@ελλάς.gr", "ada@ελλάσ.gr"),
        ("ada@exa\u200dmple.com", "ada@example.com"),  # IDNA 2003 drops the joiner
        ("ada@xn--zca.de", "ada@ss.de"),  # ß.de written in ASCII
    ],
)
def test_two_domains_idna_2003_made_one_stay_two(one, other):
    assert address_comparable(one) != address_comparable(other)


@pytest.mark.parametrize(
    ("given", "forms"),
    [
        (" Ada@Straße.DE ", ["ada@xn--strae-oqa.de", "ada@straße.de"]),
        ("ada@xn--strae-oqa.de", ["ada@xn--strae-oqa.de", "ada@straße.de"]),
        (f"ada@{FULL_WIDTH}.com", ["ada@example.com", f"ada@{FULL_WIDTH}.com"]),
        ("ada@exa\u00admple.com", ["ada@example.com", "ada@exa\u00admple.com"]),
        ("ada@xn--n3h.net", ["ada@xn--n3h.net", "ada@☃.net"]),
        ("ada@☃.net", ["ada@xn--n3h.net", "ada@☃.net"]),
        ("Ada@Example.COM", ["ada@example.com"]),
        ("ada@xn--a-.com", ["ada@xn--a-.com"]),  # Punycode of "a", which is no A-label of a
    ],
)
def test_the_forms_of_an_address_hold_it_as_written_and_its_domain_in_ascii_and_unicode(given, forms):
    assert address_forms(given) == forms


@given(st.text())
def test_any_text_compares_without_an_error_and_its_comparable_form_is_its_own(text):
    comparable = address_comparable(text)
    assert address_comparable(comparable) == comparable
    assert all(address_comparable(form) == comparable for form in address_forms(comparable))
