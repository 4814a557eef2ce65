#!/bin/sh
# Make sure the local PostgreSQL and RabbitMQ (with its management plugin) are up.
# On a bare Debian or Ubuntu machine, as root, installs them from the distribution's packages
# first (and lets local connections in without a password, as a development machine needs);
# otherwise says the exact command to run. Starts what is down; never stops anything.
#
# ENSURE_SERVICES_DRY_RUN=1 prints what it would install instead of installing (the tests use
# it); OS_RELEASE names the os-release file to read (default /etc/os-release).
set -e

pg_up() { pg_isready -q -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}"; }
rabbit_up() { rabbitmq-diagnostics -q check_port_connectivity >/dev/null 2>&1; }
# The node itself answers (over Erlang's distribution, not the AMQP port).
rabbit_node_runs() { rabbitmq-diagnostics -q ping >/dev/null 2>&1; }
management_up() { curl -fsS -u guest:guest -o /dev/null http://127.0.0.1:15672/api/overview; }
have() { command -v "$1" >/dev/null 2>&1; }

WAIT_SECONDS=${ENSURE_SERVICES_WAIT_SECONDS:-60}

wait_for() {
  name=$1; shift
  for _ in $(seq 1 "$WAIT_SECONDS"); do
    if "$@"; then return 0; fi
    sleep 1
  done
  echo "$name did not come up within $WAIT_SECONDS s" >&2
  return 1
}

# The Debian packages of what is missing, by the commands this script and the product use.
missing_packages() {
  packages=""
  { have pg_isready && have pg_ctlcluster; } || packages="postgresql"
  { have rabbitmq-server && have rabbitmq-diagnostics && have rabbitmq-plugins; } || packages="$packages rabbitmq-server"
  have curl || packages="$packages curl"
  echo $packages
}

debian_like() {
  release=${OS_RELEASE:-/etc/os-release}
  [ -r "$release" ] && grep -Eiq '^(ID|ID_LIKE)=.*(debian|ubuntu)' "$release"
}

# A PostgreSQL this script installed takes local TCP connections without a password (the
# product's default DATABASE_URL is postgres://postgres@127.0.0.1:5432/orders).
trust_local_connections() {
  for hba in /etc/postgresql/*/main/pg_hba.conf; do
    grep -q "^host all all 127.0.0.1/32 trust" "$hba" && continue
    sed -i '1i host all all ::1/128 trust' "$hba"
    sed -i '1i host all all 127.0.0.1/32 trust' "$hba"
  done
  # the package may have started the cluster already: make it read the new rules
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main reload 2>/dev/null || true
}

install_missing() {
  packages=$(missing_packages)
  [ -z "$packages" ] && return 0
  command="apt-get install -y $packages"
  if ! debian_like; then
    echo "Missing: $packages. This machine is not Debian or Ubuntu: install PostgreSQL 15 and RabbitMQ 3.10 or newer (with curl) with its package manager, then run this again." >&2
    exit 1
  fi
  if [ "$(id -u)" -ne 0 ]; then
    echo "Missing: $packages. Install them as root, then run this again:" >&2
    echo "  sudo apt-get update && sudo $command" >&2
    exit 1
  fi
  if [ -n "${ENSURE_SERVICES_DRY_RUN:-}" ]; then
    echo "would run: apt-get update && $command"
    exit 0
  fi
  echo "installing $packages from the distribution's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null
  case " $packages " in *" postgresql "*) trust_local_connections ;; esac
}

install_missing

if ! pg_up; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  wait_for PostgreSQL pg_up
fi

# A node that runs but takes no connection on its port (busy, or out of file handles) is waited
# for, never joined by a second server: a second one under the same name does not help, and was
# seen to leave the first unable to take connections.
if ! rabbit_up && rabbit_node_runs; then
  if ! wait_for "RabbitMQ's port" rabbit_up; then
    echo "RabbitMQ runs but takes no connection on its port: see 'rabbitmq-diagnostics status' (file descriptors, alarms) and its log. Not starting a second server." >&2
    exit 1
  fi
fi
if ! rabbit_up; then
  echo "starting RabbitMQ"
  rabbitmq-server -detached
  wait_for RabbitMQ rabbit_up
fi

if ! management_up; then
  echo "enabling the RabbitMQ management plugin"
  rabbitmq-plugins enable rabbitmq_management >/dev/null
  wait_for "RabbitMQ management API" management_up
fi
echo "PostgreSQL and RabbitMQ are up"
