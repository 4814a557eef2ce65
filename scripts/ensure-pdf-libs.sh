#!/bin/sh
# Invoices are rendered to PDF by WeasyPrint, which loads Pango (and through it HarfBuzz and
# fontconfig) at import; the tests read each PDF back with poppler's pdftotext. Install what
# is missing from Debian's packages; never touch what is there.
set -e
missing=""
for lib in libpango-1.0.so.0 libpangoft2-1.0.so.0; do
  ldconfig -p | grep -q "$lib" || missing="$missing libpango-1.0-0 libpangoft2-1.0-0"
done
fc-list 2>/dev/null | grep -qi "dejavu" || missing="$missing fonts-dejavu-core"
if [ "${1:-}" = "--tests" ]; then
  command -v pdftotext >/dev/null 2>&1 || missing="$missing poppler-utils"
fi
[ -z "$missing" ] && exit 0
echo "installing Debian's$missing for the invoices' PDFs"
if [ "$(id -u)" -ne 0 ]; then
  echo "missing:$missing; this user cannot install them: run 'apt-get install$missing' as root" >&2
  exit 1
fi
apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
