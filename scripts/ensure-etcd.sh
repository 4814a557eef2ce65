#!/bin/sh
# The etcd of the drill's PostgreSQL cluster (tools/drill/pg_cluster.py, Patroni's store).
# Debian's etcd-server package (3.4, whose v3 API Patroni's etcd3 client speaks), taken apart
# instead of installed: installing it would start a machine-wide etcd service, and the cluster
# starts its own on free ports. Kept in the user's cache; an etcd on PATH is used as it is.
# Prints the path, or says why there is none and exits 1.
set -e
if command -v etcd >/dev/null 2>&1; then
  command -v etcd
  exit 0
fi
cache="${XDG_CACHE_HOME:-$HOME/.cache}/order-notifications"
if [ ! -x "$cache/etcd" ]; then
  mkdir -p "$cache/etcd-deb"
  if ! (cd "$cache/etcd-deb" && apt-get download etcd-server >/dev/null 2>&1 \
      && dpkg-deb -x etcd-server_*.deb extracted && cp extracted/usr/bin/etcd "$cache/etcd"); then
    rm -rf "$cache/etcd-deb"
    echo "etcd could not be had: Debian's etcd-server package did not download (run 'apt-get update' first) and no etcd is on PATH" >&2
    exit 1
  fi
  rm -rf "$cache/etcd-deb"
fi
echo "$cache/etcd"
