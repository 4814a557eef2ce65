"""What a preview of the invoice template costs the web process. A version is laid out in a
child for up to LAYOUT_MAX_WALL_SECONDS, and anyone who may see the versions may ask for its
preview, an email editor or a staff member who may only look: the page frames the PDFs and lays
out nothing, and each frame lays out its own sample alone (it laid out both, three times a page)."""

import pytest

from notifications.documents import template_check
from tests.integration.invoices.template_drafts import ADMIN, SHIPPED_HTML, stored_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def laid_out(monkeypatch) -> list[int]:
    """How many HTMLs each layout child was given, as template_check asks for them."""
    counts: list[int] = []
    lay_out = template_check.layouts_in_child

    def counted(htmls: list[str], *, label: str):
        counts.append(len(htmls))
        return lay_out(htmls, label=label)

    monkeypatch.setattr(template_check, "layouts_in_child", counted)
    return counts


def test_an_email_editor_s_preview_lays_out_each_sample_once_in_its_own_frame(client, editor, laid_out):
    # given: a version of the invoice template, seen by an email editor
    version = stored_version(SHIPPED_HTML)
    # when: the preview page, then its two frames
    page = client.get(f"{ADMIN}{version.pk}/preview/")
    framed = [client.get(f"{ADMIN}{version.pk}/preview/{which}.pdf") for which in ("invoice", "credit_note")]
    # then: the page laid out nothing; each frame its own sample
    assert page.content.decode().count('<iframe class="document-pdf"') == 2
    assert [pdf["Content-Type"] for pdf in framed] == ["application/pdf"] * 2
    assert laid_out == [1, 1]


def test_a_version_that_does_not_render_says_why_in_its_frame(client, invoice_editor):
    # given: a version stored behind the check's back, showing none of the legal elements
    version = stored_version("<html><body><p>Hello</p></body></html>")
    # when
    page = client.get(f"{ADMIN}{version.pk}/preview/")
    frame = client.get(f"{ADMIN}{version.pk}/preview/invoice.pdf")
    # then
    assert page.status_code == 200
    assert frame.status_code == 422
    assert frame.content.decode().startswith("This version does not render: ")
