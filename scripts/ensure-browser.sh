#!/bin/sh
# The browser tests drive Debian's Chromium (Playwright's own browser download does not work
# on our machines). Install it if it is missing; never touch it otherwise.
set -e
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
echo "installing Debian's chromium for the browser tests"
if [ "$(id -u)" -ne 0 ]; then
  echo "chromium is missing and this user cannot install it: run 'apt-get install chromium' as root" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
