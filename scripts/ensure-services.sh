#!/bin/sh
# Make sure the local PostgreSQL and RabbitMQ (with its management plugin) are up.
# Starts what is down; never stops anything.
set -e

pg_up() { pg_isready -q -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}"; }
rabbit_up() { rabbitmq-diagnostics -q check_port_connectivity >/dev/null 2>&1; }
management_up() { curl -fsS -u guest:guest -o /dev/null http://127.0.0.1:15672/api/overview; }

wait_for() {
  name=$1; shift
  for _ in $(seq 1 60); do
    if "$@"; then return 0; fi
    sleep 1
  done
  echo "$name did not come up within 60 s" >&2
  return 1
}

if ! pg_up; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start
  wait_for PostgreSQL pg_up
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
