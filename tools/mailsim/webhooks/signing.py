"""How each provider proves a webhook is its own: Svix signatures (Resend), basic auth (Brevo, Postmark).

The Svix scheme, implemented here with the standard library: ``svix-signature`` is
``v1,<base64 HMAC-SHA256>`` over ``"{svix-id}.{svix-timestamp}.{body}"``, keyed with the
base64-decoded part of the secret after ``whsec_``. The tests verify it with the real ``svix``
package, so the two cannot silently disagree.
"""

import base64
import hashlib
import hmac
import secrets
import string

SVIX_ID_ALPHABET = string.ascii_letters + string.digits
# Svix message ids look like msg_2W2D3qXLS5fOaPja1GDg7rF2CwB: "msg_" and 27 alphanumerics.
SVIX_ID_LENGTH = 27


def svix_event_id() -> str:
    return "msg_" + "".join(secrets.choice(SVIX_ID_ALPHABET) for _ in range(SVIX_ID_LENGTH))


def svix_headers(secret: str, event_id: str, body: bytes, timestamp: int) -> dict[str, str]:
    # Svix pads the secret before decoding, so an unpadded base64 secret works there too.
    key = base64.b64decode(secret.removeprefix("whsec_") + "==")
    signed = f"{event_id}.{timestamp}.".encode() + body
    signature = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return {"svix-id": event_id, "svix-timestamp": str(timestamp), "svix-signature": f"v1,{signature}"}


def basic_auth_headers(credentials: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(credentials.encode()).decode()}
