"""No customer address in a log line: the filter every process's logging config uses masks
anything shaped like one, wherever in the record it is. (In a real process configured by
our settings: tests/integration/test_log_masking.py.)"""

import json
import logging
import sys

import pytest

from observability.logs import EmailMaskingFilter, JsonLinesFormatter, email_addresses_mask


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("ada.lovelace@example.com", "a***@example.com"),
        (
            "The mail provider refused the email to Nobody+1@Mail.Example.org (HTTP 422)",
            "N***@Mail.Example.org",
        ),
        ("GET /admin/?q=ada%40example.com HTTP/1.1", "a***%40example.com"),
        ('{"to": ["x_y@shop.example.de"]}', "x***@shop.example.de"),
    ],
)
def test_an_address_is_masked_to_its_first_letter_and_domain(text, masked):
    assert masked in email_addresses_mask(text)
    assert "@" not in email_addresses_mask(text).replace(masked, "")


@pytest.mark.parametrize(
    "text", ["worker@vm ready.", "amqp://guest:**@127.0.0.1:5672/orders", "celery@host-1", "no address here"]
)
def test_node_names_and_broker_urls_are_left_alone(text):
    assert email_addresses_mask(text) == text


def _formatted(record: logging.LogRecord) -> str:
    EmailMaskingFilter().filter(record)
    return JsonLinesFormatter().format(record)


def test_the_message_its_arguments_and_extra_fields_are_masked():
    record = logging.LogRecord(
        "x", logging.WARNING, __file__, 1, "refused %s for %r", ("ada@example.com", "b@example.org"), None
    )
    record.customer = "carl@example.net"
    record.payload = {"to": ["dora@example.com"]}
    line = json.loads(_formatted(record))
    assert line["message"] == "refused a***@example.com for 'b***@example.org'"
    assert line["customer"] == "c***@example.net"
    assert "dora@" not in json.dumps(line)


def test_the_exception_text_is_masked():
    try:
        raise ValueError("invalid recipient eve@example.com")
    except ValueError:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    out = _formatted(record)
    assert "e***@example.com" in out
    assert "eve@example.com" not in out
    assert "Traceback" in out
