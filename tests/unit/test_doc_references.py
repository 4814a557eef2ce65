"""Every repository path and product module that README.md, CONTRIBUTING.md and docs/ name
exists (what counts and what is left out: tests/unit/doc_references.py). A renamed or moved
file fails here until the words follow it."""

from tests.unit.doc_references import REPO, documents, missing, references

# Made-up names the recipes use to show a step: the shipping email of "a new event type" and
# "a new kind of email", and the German catalogue of "Adding a language".
EXAMPLES = frozenset({"orders.shipping", "order_shipping/", "de/LC_MESSAGES/django.po"})


def test_the_documents_and_their_references_are_found():
    # a check over nothing would pass whatever the documents say
    assert {"README.md", "docs/architecture.md", "docs/operations.md"} <= set(documents())
    named = [name for document in documents() for *_, name in references(document, _text(document))]
    assert len(named) > 500
    assert {"messaging/relay/relay.py", "operations/", "orders.services.order_create"} <= set(named)


def test_every_path_and_module_the_documents_name_exists():
    not_found = [line for document in documents() for line in missing(document, _text(document), EXAMPLES)]
    assert not not_found, "rename these in the words, or the code back:\n" + "\n".join(not_found)


def test_a_made_up_path_module_link_and_layout_entry_are_reported():
    text = "\n".join(
        [
            "The relay is `messaging/relay/frames.py` and `messaging/relay/relay.py`.",
            "Dead letters: `messaging.dead_letters.replay`, but `messaging.dead_lettering` exists.",
            "A model of its app: `orders.Order`; not `orders.Parcel`.",
            "See [the drill](../drill/README.md) and [the runbook](runbook.md).",
            "```",
            "tools/",
            "  mailsim/     exists",
            "  mailsimulator/   does not",
            "demo/          no longer at the top",
            "```",
        ]
    )
    assert missing("docs/made-up.md", text) == [
        "docs/made-up.md:1: messaging/relay/frames.py",
        "docs/made-up.md:2: messaging.dead_letters.replay",
        "docs/made-up.md:3: orders.Parcel",
        "docs/made-up.md:4: drill/README.md",
        "docs/made-up.md:8: tools/mailsimulator/",
        "docs/made-up.md:9: demo/",
    ]


def test_a_name_may_be_relative_to_a_folder_named_earlier_in_its_section():
    text = "\n".join(
        [
            "## Delivery",
            "The handler, `notifications/delivery/handler.py`, claims in `delivery/claims.py`.",
            "## Elsewhere",
            "`delivery/claims.py` alone names nothing here; nor does `drill/harness.py`.",
        ]
    )
    assert missing("docs/made-up.md", text) == [
        "docs/made-up.md:4: delivery/claims.py",
        "docs/made-up.md:4: drill/harness.py",
    ]


def test_what_is_no_repository_path_is_left_alone():
    text = "\n".join(
        [
            "`https://example.com/a/b.py`, `/admin/dashboard/`, `POST /api/orders/<id>/pay/`,",
            "`var/email-previews/`, `.venv/bin/python`, `notifications/providers/<name>.py`,",
            '`600/min`, `127.0.0.0/8`, `{% extends "notifications/email/base.html" %}`,',
            "`orders.confirmations` and `orders.confirmations.dlq` (queues), `.po` and `.mo` files.",
        ]
    )
    assert missing("docs/made-up.md", text) == []


def _text(document: str) -> str:
    return (REPO / document).read_text()
