#!/bin/sh
# promtool checks deploy/prometheus/alerts.yml in the tests. Taken from Debian's prometheus
# package without installing it (no server is set up); kept in the user's cache.
# Prints the path, or nothing when it cannot be had (the test then checks what it can).
set -e
cache="${XDG_CACHE_HOME:-$HOME/.cache}/order-notifications"
if [ ! -x "$cache/promtool" ]; then
  mkdir -p "$cache/deb"
  (cd "$cache/deb" && apt-get download prometheus >/dev/null 2>&1 \
    && dpkg-deb -x prometheus_*.deb extracted && cp extracted/usr/bin/promtool "$cache/promtool" \
    && rm -rf "$cache/deb") || { rm -rf "$cache/deb"; exit 0; }
fi
echo "$cache/promtool"
