"""Whether a provider event's recipient is the address a send went to
(notifications/tracking/sends.py): an event naming another address acts on nothing."""

import pytest

from notifications.tracking.sends import address_agrees


@pytest.mark.parametrize(
    ("recipient", "sent_to"),
    [
        ("", "ada@example.com"),  # the provider named none: the send's own address applies
        ("ada@example.com", "ada@example.com"),
        ("Ada@Example.COM", "ada@example.com"),  # as the suppression list compares: any case
        ("ada@xn--mnchen-3ya.de", "ada@münchen.de"),  # a domain in its ASCII form
        ("ada@xn--strae-oqa.de", "ada@straße.de"),  # as IDNA 2008 writes ß
        ("ada@xn--n3h.net", "ada@☃.net"),  # a domain IDNA 2008 refuses, in plain Punycode
        ("ada@[10.0.0.5]", "ada@[10.0.0.5]"),
    ],
)
def test_the_same_address_in_another_form_agrees(recipient, sent_to):
    assert address_agrees(recipient, sent_to)


@pytest.mark.parametrize(
    ("recipient", "sent_to"),
    [
        ("ada@gmail.com", "ada@gmial.com"),  # a corrected address is not the mistyped one
        ("carol@example.com", "ada@example.com"),
        ("ada@a..b", "ada@example.com"),  # a domain IDNA refuses is compared as it is
        ("ada@strasse.de", "ada@straße.de"),  # another domain, which IDNA 2003 made of ß
        ("ada@example.com", "ada@exa\u200dmple.com"),  # IDNA 2003 drops the joiner
    ],
)
def test_another_address_does_not_agree(recipient, sent_to):
    assert not address_agrees(recipient, sent_to)
