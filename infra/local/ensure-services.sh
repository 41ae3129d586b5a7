#!/usr/bin/env bash
# Starts the local PostgreSQL and Redis that Croupier's tests and default deployment use, when
# they are installed here but not running. Does nothing for a service that already answers, and
# nothing for one that is not installed (the tests then say what to start or which URL to set).
set -uo pipefail

PG_HOST=${PGHOST:-127.0.0.1}
PG_PORT=${PGPORT:-5432}
REDIS_PORT=${REDIS_PORT:-6379}

wait_for() { # description, command...
  local what=$1
  shift
  for _ in $(seq 1 60); do
    if "$@" >/dev/null 2>&1; then
      echo "ensure-services: $what is up"
      return 0
    fi
    sleep 0.5
  done
  echo "ensure-services: $what did not come up within 30 s" >&2
  return 1
}

pg_up() { pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; }
if command -v pg_isready >/dev/null 2>&1 && ! pg_up; then
  if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
    for version in $(ls /etc/postgresql); do
      echo "ensure-services: starting PostgreSQL $version"
      pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
    done
    wait_for PostgreSQL pg_up
  else
    echo "ensure-services: PostgreSQL is not running and no pg_ctlcluster was found" >&2
  fi
fi

# The distributed e2e run holds about 100 connections at its peak (every process's pool, and one
# connection per subscription: each holds its lease as a session advisory lock); PostgreSQL's
# default max_connections is 100. Raise a local server's limit once (a restart), never lower it.
MIN_CONNECTIONS=${PG_MIN_CONNECTIONS:-300}
if command -v psql >/dev/null 2>&1 && pg_up; then
  current=$(psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -Atc 'SHOW max_connections' 2>/dev/null || echo "")
  if [ -n "$current" ] && [ "$current" -lt "$MIN_CONNECTIONS" ]; then
    if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ] &&
      psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -qc "ALTER SYSTEM SET max_connections = $MIN_CONNECTIONS" >/dev/null 2>&1; then
      echo "ensure-services: raising PostgreSQL max_connections from $current to $MIN_CONNECTIONS (restart)"
      for version in $(ls /etc/postgresql); do
        pg_ctlcluster --skip-systemctl-redirect "$version" main restart || true
      done
      wait_for PostgreSQL pg_up
    else
      echo "ensure-services: PostgreSQL allows $current connections; the distributed e2e run needs about 100 (set max_connections to $MIN_CONNECTIONS)" >&2
    fi
  fi
fi

redis_up() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping | grep -q PONG; }
if command -v redis-server >/dev/null 2>&1 && ! redis_up; then
  echo "ensure-services: starting Redis"
  mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$REDIS_PORT" --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis redis_up
fi
exit 0
