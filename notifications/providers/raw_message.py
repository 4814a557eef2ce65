"""An email as one MIME message (RFC 5322, 7-bit), for a provider that takes it whole: SES's
`Content.Raw`, which is how SES v2 carries attachments with headers of ours.

Every header is written by Python's email package under its SMTP policy: a value that is not
ASCII is RFC 2047-encoded, an attachment's name RFC 2231-encoded with quotes escaped, and a
value with a line break is refused (ValueError) rather than written: no header can be ended
early and another slipped in. (refused_attachments has refused such names before this.)
"""

from email import policy
from email.message import EmailMessage
from email.utils import formatdate

from notifications.providers.attachments import sendable_filename
from notifications.providers.base import OutboundEmail

# 7-bit: a text that is not ASCII goes quoted-printable, so every byte is one SES takes.
SEVEN_BIT = policy.SMTP.clone(cte_type="7bit")


def mime_message(email: OutboundEmail, headers: list[tuple[str, str]]) -> bytes:
    message = EmailMessage(policy=SEVEN_BIT)
    message["From"] = email.from_address
    message["To"] = email.to
    message["Subject"] = email.subject
    message["Date"] = formatdate(usegmt=True)
    for name, value in headers:
        message[name] = value
    message.set_content(email.text)
    if email.html:
        message.add_alternative(email.html, subtype="html")
    for attachment in email.attachments:
        maintype, _, subtype = attachment.content_type.partition("/")
        message.add_attachment(
            attachment.content, maintype=maintype, subtype=subtype, filename=sendable_filename(attachment)
        )
    return message.as_bytes()
