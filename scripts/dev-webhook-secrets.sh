#!/bin/sh
# Development only: the keys the mail simulator signs its delivery webhooks with and the web
# process checks them with (make run). Made once per checkout into var/ (never committed),
# then read by `make run` into both processes' environments.
set -e
file=var/webhook-secrets.env
[ -s "$file" ] && exit 0
mkdir -p var
python=${PYTHON:-.venv/bin/python}
signing=$($python -c "import base64, secrets; print('whsec_' + base64.b64encode(secrets.token_bytes(24)).decode())")
basic=$($python -c "import secrets; print('sim:' + secrets.token_urlsafe(18))")
umask 077
{
  echo "RESEND_WEBHOOK_SECRET=$signing"
  echo "MAILSIM_RESEND_WEBHOOK_SECRET=$signing"
  echo "ANYMAIL_WEBHOOK_SECRET=$basic"
  echo "MAILSIM_WEBHOOK_BASIC_AUTH=$basic"
} > "$file"
