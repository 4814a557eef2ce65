"""Signed delivery webhooks for accepted messages, as Resend, Brevo and Postmark post them.

An accepted message gets its events planned at once (``dispatcher.py``: which events, when, in
which order, which ones twice) and stored with it as deliveries (``queue.py``); a background
thread (``sender.py``) posts them when due, signed (``signing.py``), and retries with back-off.
``resend.py``, ``brevo.py`` and ``postmark.py`` build each provider's payloads.
"""
