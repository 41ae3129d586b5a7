#!/usr/bin/env bash
# The distributed deployment on this machine: shoe, wallet, round and two settlement instances as
# separate processes on the local PostgreSQL and Redis (docs/deployment.md).
#
#   infra/local/run-distributed.sh start [--dist] [--gateway] [--single-settlement]
#   infra/local/run-distributed.sh status
#   infra/local/run-distributed.sh stop
#   infra/local/run-distributed.sh kill NAME | restart NAME
#
# start   starts PostgreSQL and Redis if they are installed but stopped (ensure-services.sh),
#         creates the database if it is missing, then each process in turn, waiting for its
#         /ready. Ports: shoe 8081, wallet 8082, settlement 8083 (and its standby 8085), round
#         8084; with --gateway also the gateway on 8080 (the whole API: audit, console, OpenAPI),
#         which then leaves the settlement queue to the wallet service. --dist runs the compiled
#         services/<name>/dist/main.js (run `pnpm build` first) instead of the TypeScript sources.
# status  each recorded process: running or not, and what its /ready says.
# stop    SIGTERM to every recorded process (each finishes its in-flight work), SIGKILL to any
#         still running after STOP_TIMEOUT seconds.
# kill    SIGKILL to one process (shoe, wallet, round, settlement-1, settlement-2, gateway): no
#         graceful shutdown, to watch the standby settlement take over; restart starts it again.
#
# Logs, PIDs and generated secrets go to RUN_DIR (default ./data/distributed, ignored by git).
# Env (all optional): DATABASE_URL (default postgres://postgres@127.0.0.1:5432/croupier),
# DATABASE_SCHEMA (croupier), REDIS_URL (redis://127.0.0.1:6379), REDIS_PREFIX (croupier),
# JWT_SECRET and SHOE_SEED_KEY (generated once into RUN_DIR/secrets.env when unset), LOG_LEVEL,
# HOST (127.0.0.1), READY_TIMEOUT (90 s per process), STOP_TIMEOUT (20 s).
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN_DIR=${RUN_DIR:-$ROOT/data/distributed}
LOG_DIR=$RUN_DIR/logs
PID_DIR=$RUN_DIR/pids
READY_TIMEOUT=${READY_TIMEOUT:-90}
STOP_TIMEOUT=${STOP_TIMEOUT:-20}
HOST=${HOST:-127.0.0.1}

# name:service:port, in start order (the round service calls shoe and wallet).
PROCESSES=(shoe:shoe:8081 wallet:wallet:8082 round:round:8084 settlement-1:settlement:8083 settlement-2:settlement:8085)

say() { echo "run-distributed: $*"; }
fail() {
  echo "run-distributed: $*" >&2
  exit 1
}

alive() { # pid file
  [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

ready() { # port
  curl -fsS --max-time 2 "http://$HOST:$1/ready" 2>/dev/null
}

port_of() { # name
  local entry
  for entry in "${PROCESSES[@]}" gateway:gateway:8080; do
    [ "${entry%%:*}" = "$1" ] && echo "${entry##*:}" && return
  done
}

stop_all() {
  local pidfile pid name waited
  shopt -s nullglob
  local pidfiles=("$PID_DIR"/*.pid)
  if [ ${#pidfiles[@]} -eq 0 ]; then
    say "nothing recorded in $PID_DIR"
    return 0
  fi
  for pidfile in "${pidfiles[@]}"; do
    if alive "$pidfile"; then
      say "stopping $(basename "$pidfile" .pid) (pid $(cat "$pidfile"))"
      kill -TERM "$(cat "$pidfile")" 2>/dev/null
    fi
  done
  for pidfile in "${pidfiles[@]}"; do
    name=$(basename "$pidfile" .pid)
    pid=$(cat "$pidfile")
    waited=0
    while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt $((STOP_TIMEOUT * 10)) ]; do
      sleep 0.1
      waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
      say "$name did not stop within ${STOP_TIMEOUT} s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null
    else
      say "$name stopped"
    fi
    rm -f "$pidfile"
  done
}

status_all() {
  local pidfile name running=0
  shopt -s nullglob
  for pidfile in "$PID_DIR"/*.pid; do
    name=$(basename "$pidfile" .pid)
    if alive "$pidfile"; then
      running=$((running + 1))
      printf '%-13s pid %-7s port %-5s %s\n' "$name" "$(cat "$pidfile")" "$(port_of "$name")" \
        "$(ready "$(port_of "$name")" || echo 'not ready')"
    else
      printf '%-13s not running (pid file left: %s)\n' "$name" "$pidfile"
    fi
  done
  [ "$running" -gt 0 ] || say "no process running"
}

ensure_database() {
  # Creates the database named in DATABASE_URL on a local server when it is missing.
  command -v psql >/dev/null 2>&1 || return 0
  local database=${DATABASE_URL##*/}
  database=${database%%\?*}
  local server=${DATABASE_URL%/*}/postgres
  if ! psql "$server" -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'" 2>/dev/null | grep -q 1; then
    say "creating database $database"
    psql "$server" -qc "CREATE DATABASE \"$database\"" || fail "could not create database $database"
  fi
}

secrets() {
  local file=$RUN_DIR/secrets.env
  if [ -z "${JWT_SECRET:-}" ] || [ -z "${SHOE_SEED_KEY:-}" ]; then
    if [ ! -f "$file" ]; then
      (
        umask 077
        printf 'JWT_SECRET=%s\nSHOE_SEED_KEY=%s\n' "$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" \
          "$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')" >"$file"
      )
      say "generated development secrets in $file"
    fi
    local given_jwt=${JWT_SECRET:-} given_seed=${SHOE_SEED_KEY:-}
    # shellcheck disable=SC1090
    . "$file"
    JWT_SECRET=${given_jwt:-$JWT_SECRET}
    SHOE_SEED_KEY=${given_seed:-$SHOE_SEED_KEY}
  fi
  export JWT_SECRET SHOE_SEED_KEY
}

prepare_env() {
  export EVENTSTORE=postgres
  export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/croupier}
  export DATABASE_SCHEMA=${DATABASE_SCHEMA:-croupier}
  export REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
  export REDIS_PREFIX=${REDIS_PREFIX:-croupier}
  export HOST LOG_LEVEL=${LOG_LEVEL:-info}
  secrets
}

# The extra environment of each kind of process.
env_of() { # service
  case $1 in
    round) echo "SHOE_URL=http://$HOST:8081 WALLET_URL=http://$HOST:8082" ;;
    wallet) echo "WALLET_CONSUMER_CONCURRENCY=${WALLET_CONSUMER_CONCURRENCY:-16}" ;;
    # The gateway opens no tables of its own. It applies settlement messages as the wallet
    # service does (both are Croupier's wallet, on one store): nothing to turn off.
    gateway) echo "AUTO_TABLES=" ;;
  esac
}

service_of() { # name
  local entry n s
  for entry in "${PROCESSES[@]}" gateway:gateway:8080; do
    IFS=: read -r n s _ <<<"$entry"
    [ "$n" = "$1" ] && echo "$s" && return
  done
}

start_one() { # name service port [VAR=value...]
  local name=$1 service=$2 port=$3
  shift 3
  local pidfile=$PID_DIR/$name.pid log=$LOG_DIR/$name.log entry
  if [ "$DIST" = 1 ]; then
    entry=(node "services/$service/dist/main.js")
    [ -f "$ROOT/services/$service/dist/main.js" ] || fail "no services/$service/dist: run pnpm build"
  else
    entry=(node --conditions=@croupier/source --import tsx "services/$service/src/main.ts")
  fi
  if curl -s --max-time 1 -o /dev/null "http://$HOST:$port/"; then
    fail "port $port is taken: something else listens there (stop it, or '$0 stop')"
  fi
  (
    cd "$ROOT" || exit 1
    exec env PORT="$port" "$@" "${entry[@]}" >>"$log" 2>&1 </dev/null
  ) &
  echo $! >"$pidfile"
  local waited=0
  while ! ready "$port" >/dev/null; do
    if ! alive "$pidfile"; then
      tail -n 20 "$log" >&2
      fail "$name exited while starting; log: $log"
    fi
    if [ "$waited" -ge $((READY_TIMEOUT * 5)) ]; then
      tail -n 20 "$log" >&2
      fail "$name not ready after ${READY_TIMEOUT} s; log: $log"
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  say "$name ready on http://$HOST:$port (pid $(cat "$pidfile"), log $log)"
}

start_all() {
  DIST=0
  local gateway=0 single=0 arg
  for arg in "$@"; do
    case $arg in
      --dist) DIST=1 ;;
      --gateway) gateway=1 ;;
      --single-settlement) single=1 ;;
      *) fail "unknown option $arg" ;;
    esac
  done
  mkdir -p "$LOG_DIR" "$PID_DIR"
  shopt -s nullglob
  local pidfile
  for pidfile in "$PID_DIR"/*.pid; do
    alive "$pidfile" && fail "already running ($(basename "$pidfile" .pid)): '$0 status' or '$0 stop'"
    rm -f "$pidfile"
  done

  bash "$ROOT/infra/local/ensure-services.sh"
  prepare_env
  ensure_database

  # Stop whatever started if a later process fails.
  trap 'say "start failed: stopping what was started"; stop_all' EXIT
  local entry name service port
  for entry in "${PROCESSES[@]}"; do
    IFS=: read -r name service port <<<"$entry"
    [ "$single" = 1 ] && [ "$name" = settlement-2 ] && continue
    # shellcheck disable=SC2046
    start_one "$name" "$service" "$port" $(env_of "$service")
  done
  # shellcheck disable=SC2046
  [ "$gateway" = 1 ] && start_one gateway gateway 8080 $(env_of gateway)
  echo "$DIST" >"$RUN_DIR/dist"
  trap - EXIT
  say "running on $DATABASE_URL (schema $DATABASE_SCHEMA) and $REDIS_URL (prefix $REDIS_PREFIX)"
  say "logs in $LOG_DIR; '$0 stop' stops them"
}

kill_one() { # name: kill -9, no graceful shutdown (to watch a standby take over)
  local pidfile=$PID_DIR/$1.pid
  alive "$pidfile" || fail "$1 is not running"
  kill -KILL "$(cat "$pidfile")"
  say "killed $1 (pid $(cat "$pidfile")) with SIGKILL"
}

restart_one() { # name: starts a process that was killed or stopped, as start did
  local name=$1 service port
  service=$(service_of "$name")
  [ -n "$service" ] || fail "no process named $name"
  port=$(port_of "$name")
  alive "$PID_DIR/$name.pid" && fail "$name is running"
  mkdir -p "$LOG_DIR" "$PID_DIR"
  DIST=$(cat "$RUN_DIR/dist" 2>/dev/null || echo 0)
  prepare_env
  # shellcheck disable=SC2046
  start_one "$name" "$service" "$port" $(env_of "$service")
}

case ${1:-} in
  kill) kill_one "${2:?name of a process, e.g. settlement-1}" ;;
  restart) restart_one "${2:?name of a process, e.g. settlement-1}" ;;
  start)
    shift
    start_all "$@"
    ;;
  stop) stop_all ;;
  status) status_all ;;
  *)
    sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'
    [ -n "${1:-}" ] && exit 2
    exit 0
    ;;
esac
