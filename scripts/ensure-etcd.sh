#!/bin/sh
# The etcd of the drill's PostgreSQL cluster (tools/drill/pg_cluster.py, Patroni's store).
# Debian's etcd-server package (3.4, whose v3 API Patroni's etcd3 client speaks), taken apart
# instead of installed: installing it would start a machine-wide etcd, and the cluster starts
# its own on free ports. Kept in the user's cache; an etcd on PATH is used as it is.
# Prints the path, or says why there is none and exits 1.
set -e
if command -v etcd >/dev/null 2>&1; then
  command -v etcd
  exit 0
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/order-notifications"
download() { (cd "$cache/etcd-deb" && apt-get download etcd-server >/dev/null 2>&1); }
if [ ! -x "$cache/etcd" ]; then
  rm -rf "$cache/etcd-deb" && mkdir -p "$cache/etcd-deb"
  # a machine whose package lists were never fetched knows no etcd-server yet
  download || { [ "$(id -u)" -eq 0 ] && apt-get update -qq >/dev/null 2>&1 && download; } || {
    rm -rf "$cache/etcd-deb"
    echo "etcd could not be had: Debian's etcd-server package did not download (as root: apt-get update) and no etcd is on PATH" >&2
    exit 1
  }
  (cd "$cache/etcd-deb" && dpkg-deb -x etcd-server_*.deb extracted && cp extracted/usr/bin/etcd "$cache/etcd")
  rm -rf "$cache/etcd-deb"
fi
echo "$cache/etcd"
