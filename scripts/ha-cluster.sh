#!/usr/bin/env bash
# The reference topology of docs/high-availability.md, on one machine:
#
#   etcd (one member) <- Patroni pg1, Patroni pg2 (PostgreSQL 15, synchronous_mode)
#   HAProxy "postgres" front end -> whichever node Patroni's REST API calls primary
#   openrail1..3 (DATABASE_URL = the postgres front end) <- HAProxy "openrail" front end
#
#   scripts/ha-cluster.sh up     [state-dir]   start it all; wait for a write, a synchronous standby, /readyz
#   scripts/ha-cluster.sh status [state-dir]   patronictl list, HAProxy's view, each node's /readyz
#   scripts/ha-cluster.sh down   [state-dir]   stop everything started, then remove the state directory
#
# The state directory is the argument, else $HA_DIR, else (up) a fresh /tmp/openrail-ha.XXXXXX or
# (status, down) the only /tmp/openrail-ha.* there is. Everything lives in it: configuration,
# data, logs, pid files, and cluster.env, the ports and secrets chosen at `up` (KEY=value lines
# that `status`, `down` and test/cluster/ha-topology.test.ts read).
#
# Run as root, PostgreSQL refuses to start: Patroni (and so PostgreSQL) then runs as the
# `postgres` system user, which must exist (Debian's postgresql-common creates it). etcd, HAProxy
# and the openrail nodes run as the invoking user.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
SCOPE=openrail-ha
OPENRAIL_NODES=3
# Patroni's timing (docs/high-availability.md): loop_wait + 2 × retry_timeout ≤ ttl.
TTL=10
LOOP_WAIT=2
RETRY_TIMEOUT=4
# How long `up` waits for each stage before giving up (the machine may be busy).
UP_LIMIT=${HA_UP_LIMIT:-90}

say() { printf 'ha-cluster: %s\n' "$*"; }
fail() {
  printf 'ha-cluster: %s\n' "$*" >&2
  exit 1
}

# Seconds since `up` began, to one decimal.
elapsed() { awk -v now="$EPOCHREALTIME" -v t0="$T0" 'BEGIN { printf "%.1f", now - t0 }'; }

# ---------------------------------------------------------------------------------------------
# The state directory

resolve_state_for_up() {
  STATE=${1:-${HA_DIR:-}}
  if [ -z "$STATE" ]; then
    STATE=$(mktemp -d /tmp/openrail-ha.XXXXXX)
  elif [ -e "$STATE" ] && [ -n "$(ls -A "$STATE" 2>/dev/null)" ]; then
    fail "$STATE exists and is not empty (a cluster already up there? run: $0 down $STATE)"
  else
    mkdir -p "$STATE"
  fi
  STATE=$(cd "$STATE" && pwd)
}

resolve_state_existing() {
  STATE=${1:-${HA_DIR:-}}
  if [ -z "$STATE" ]; then
    local found=()
    for f in /tmp/openrail-ha.*/cluster.env; do [ -e "$f" ] && found+=("$(dirname "$f")"); done
    [ ${#found[@]} -eq 1 ] || fail "name the state directory (argument or HA_DIR); found ${#found[@]} under /tmp: ${found[*]:-none}"
    STATE=${found[0]}
  fi
  [ -f "$STATE/cluster.env" ] || fail "$STATE/cluster.env not found: no cluster was brought up there"
  # shellcheck source=/dev/null
  . "$STATE/cluster.env"
}

# ---------------------------------------------------------------------------------------------
# Processes

# Patroni (and the postgres it starts) must not run as root: as root, it runs as `postgres`.
if [ "$(id -u)" -eq 0 ]; then
  RUN_AS=postgres
  AS_DB_USER=(setpriv --reuid="$RUN_AS" --regid="$RUN_AS" --init-groups)
else
  RUN_AS=$(id -un)
  AS_DB_USER=()
fi

# Starts a daemon detached from this shell (its own session, no terminal, output to its log) and
# records its PID. Every daemon carries HA_CLUSTER_DIR in its environment, which is how `down`
# finds anything left over.
start_daemon() {
  local name=$1 log=$2
  shift 2
  HA_CLUSTER_DIR=$STATE setsid "$@" >"$log" 2>&1 </dev/null &
  echo $! >"$STATE/pids/$name.pid"
}

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# Whether process $1 belongs to this state directory (an argument names a path inside it, or its
# environment carries the marker): a PID from a pid file is signalled only then, never a stranger
# that reused the number.
ours() {
  grep -qzF -- "$STATE/" "/proc/$1/cmdline" 2>/dev/null ||
    grep -qzxF -- "HA_CLUSTER_DIR=$STATE" "/proc/$1/environ" 2>/dev/null
}

# Sends $2 to PID $1, waits up to $3 seconds for it to exit, then kills it.
stop_pid() {
  local pid=$1 signal=$2 limit=$3 what=$4
  alive "$pid" && ours "$pid" || return 0
  kill "-$signal" "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + limit))
  while alive "$pid"; do
    if ((SECONDS >= deadline)); then
      say "$what (pid $pid) still running after ${limit}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
      return 0
    fi
    sleep 0.1
  done
}

pid_of() { [ -f "$STATE/pids/$1.pid" ] && head -n1 "$STATE/pids/$1.pid" || true; }

# Every process whose command line or environment names the state directory (grep -z reads the
# NUL-separated /proc files a string at a time).
leftovers() {
  {
    grep -lzF -- "$STATE/" /proc/[0-9]*/cmdline
    grep -lzxF -- "HA_CLUSTER_DIR=$STATE" /proc/[0-9]*/environ
  } 2>/dev/null | cut -d/ -f3 | sort -u | while read -r pid; do
    # (the first grep matched itself; it is gone by now)
    [ "$pid" != "$$" ] && [ "$pid" != "$BASHPID" ] && alive "$pid" && ours "$pid" && echo "$pid"
  done
  return 0
}

# ---------------------------------------------------------------------------------------------
# Waiting

# Runs "$@" until it succeeds, every 0.2 s, for at most $2 seconds.
wait_for() {
  local what=$1 limit=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || {
      say "timed out after ${limit}s waiting for $what"
      return 1
    }
    sleep 0.2
  done
}

http_ok() { curl -fsS -o /dev/null --max-time 2 "$1"; }

# psql through HAProxy's postgres front end, as the superuser.
psql_front() {
  PGPASSWORD=$PG_SUPERUSER_PASSWORD PGCONNECT_TIMEOUT=2 "$PG_BIN/psql" -h 127.0.0.1 -p "$HAPROXY_PG_PORT" \
    -U postgres -d postgres -X -q -A -t -v ON_ERROR_STOP=1 "$@"
}

probe_write() {
  psql_front -c 'CREATE TABLE IF NOT EXISTS ha_probe (at timestamptz NOT NULL DEFAULT now())' \
    -c 'INSERT INTO ha_probe DEFAULT VALUES'
}

patronictl_() { patronictl -c "$STATE/pg1/patroni.yml" "$@"; }

# patronictl list shows a member in the role Sync Standby, running, and the primary's
# pg_stat_replication shows one standby streaming with sync_state 'sync'.
# (psql first: it costs far less than starting patronictl's Python.)
sync_standby_streaming() {
  [ "$(psql_front -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' AND sync_state = 'sync'")" = 1 ] &&
    patronictl_ list -f json |
    node -e 'const m = JSON.parse(require("fs").readFileSync(0, "utf8"));
      process.exit(m.some((x) => x.Role === "Sync Standby" && ["running", "streaming"].includes(x.State)) ? 0 : 1)'
}

# ---------------------------------------------------------------------------------------------
# up

free_ports() {
  # Holds all $1 listeners at once, so the ports are distinct, then releases them.
  node -e '
    const net = require("net");
    const n = Number(process.argv[1]);
    const servers = Array.from({ length: n }, () => net.createServer());
    Promise.all(servers.map((s) => new Promise((ok) => s.listen(0, "127.0.0.1", () => ok(s.address().port)))))
      .then((ports) => { console.log(ports.join(" ")); servers.forEach((s) => s.close()); });' "$1"
}

random_hex() { node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))'; }

write_env() {
  local ports
  read -r -a ports <<<"$(free_ports 12)"
  cat >"$STATE/cluster.env" <<EOF
HA_DIR=$STATE
RUN_AS=$RUN_AS
ETCD_CLIENT_PORT=${ports[0]}
ETCD_PEER_PORT=${ports[1]}
PG1_PORT=${ports[2]}
PG2_PORT=${ports[3]}
PATRONI1_REST_PORT=${ports[4]}
PATRONI2_REST_PORT=${ports[5]}
HAPROXY_PG_PORT=${ports[6]}
HAPROXY_WEB_PORT=${ports[7]}
HAPROXY_STATS_PORT=${ports[8]}
OPENRAIL1_PORT=${ports[9]}
OPENRAIL2_PORT=${ports[10]}
OPENRAIL3_PORT=${ports[11]}
PG_SUPERUSER_PASSWORD=$(random_hex)
PG_REPLICATION_PASSWORD=$(random_hex)
OPENRAIL_DB_PASSWORD=$(random_hex)
OPENRAIL_MASTER_KEY=$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64url"))')
OPENRAIL_OWNER_TOKEN=$(random_hex)
EOF
  . "$STATE/cluster.env"
  cat >>"$STATE/cluster.env" <<EOF
DATABASE_URL=postgres://openrail:$OPENRAIL_DB_PASSWORD@127.0.0.1:$HAPROXY_PG_PORT/openrail
OPENRAIL_URL=http://127.0.0.1:$HAPROXY_WEB_PORT
EOF
  . "$STATE/cluster.env"
}

write_patroni_config() {
  local i=$1 pg_port=$2 rest_port=$3 dir="$STATE/pg$1"
  mkdir -p "$dir"
  cat >"$dir/patroni.yml" <<EOF
scope: $SCOPE
name: pg$i
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$rest_port
  connect_address: 127.0.0.1:$rest_port
etcd3:
  host: 127.0.0.1:$ETCD_CLIENT_PORT
bootstrap:
  dcs:
    ttl: $TTL
    loop_wait: $LOOP_WAIT
    retry_timeout: $RETRY_TIMEOUT
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_mode_strict: false
    primary_start_timeout: 0
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: 'on'
        wal_log_hints: 'on'
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 100
  initdb:
    - encoding: UTF8
    - data-checksums
  pg_hba:
    - host replication replicator 127.0.0.1/32 scram-sha-256
    - host all all 127.0.0.1/32 scram-sha-256
postgresql:
  listen: 127.0.0.1:$pg_port
  connect_address: 127.0.0.1:$pg_port
  data_dir: $dir/data
  bin_dir: $PG_BIN
  pgpass: $dir/pgpass
  authentication:
    superuser:
      username: postgres
      password: '$PG_SUPERUSER_PASSWORD'
    replication:
      username: replicator
      password: '$PG_REPLICATION_PASSWORD'
  parameters:
    unix_socket_directories: '$dir'
    shared_buffers: 64MB
watchdog:
  mode: 'off'
EOF
  if [ "$RUN_AS" != "$(id -un)" ]; then chown -R "$RUN_AS:" "$dir"; fi
  chmod 700 "$dir"
}

write_haproxy_config() {
  cat >"$STATE/haproxy/haproxy.cfg" <<EOF
global
  maxconn 512

defaults
  timeout connect 2s
  timeout check 2s
  timeout client 30m
  timeout server 30m

# PostgreSQL: only the node whose Patroni answers 200 on /primary gets connections. A node marked
# down has its sessions cut, so clients reconnect to the new primary instead of lingering.
listen postgres
  bind 127.0.0.1:$HAPROXY_PG_PORT
  mode tcp
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
  server pg1 127.0.0.1:$PG1_PORT check port $PATRONI1_REST_PORT
  server pg2 127.0.0.1:$PG2_PORT check port $PATRONI2_REST_PORT

# openrail: round robin over the nodes that answer 200 on /readyz.
listen openrail
  bind 127.0.0.1:$HAPROXY_WEB_PORT
  mode http
  balance roundrobin
  option forwardfor
  timeout client 60s
  timeout server 60s
  timeout http-request 10s
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 2s fall 2 rise 1
EOF
  for n in $(seq 1 "$OPENRAIL_NODES"); do
    local port_var="OPENRAIL${n}_PORT"
    echo "  server openrail$n 127.0.0.1:${!port_var} check" >>"$STATE/haproxy/haproxy.cfg"
  done
  cat >>"$STATE/haproxy/haproxy.cfg" <<EOF

listen stats
  bind 127.0.0.1:$HAPROXY_STATS_PORT
  mode http
  stats enable
  stats uri /
EOF
  haproxy -c -q -f "$STATE/haproxy/haproxy.cfg"
}

# The caller's variables every openrail node is given: OTEL_* (tracing, docs/high-availability.md)
# and OPENRAIL_OUTBOUND_ALLOW / OPENRAIL_WEBHOOK_RETRY_SCHEDULE (webhooks to a local receiver).
node_extras() {
  NODE_EXTRAS=()
  local name
  while IFS= read -r name; do
    case "$name" in
      OTEL_* | OPENRAIL_OUTBOUND_ALLOW | OPENRAIL_WEBHOOK_RETRY_SCHEDULE) NODE_EXTRAS+=("$name=${!name}") ;;
    esac
  done < <(compgen -e)
}

start_openrail() {
  local n=$1 port_var="OPENRAIL${1}_PORT" dir="$STATE/openrail$1"
  mkdir -p "$dir"
  (
    cd "$dir"
    # Exactly this environment, nothing from the caller's (a stray OPENRAIL_* or NODE_OPTIONS), but
    # for what a test or an operator hands every node on purpose: the OpenTelemetry variables and
    # where webhooks may go (node_extras).
    env -i PATH="$PATH" HOME="$dir" LANG=C.UTF-8 "${NODE_EXTRAS[@]}" OPENRAIL_NODE_ID="openrail$n" \
      HOST=127.0.0.1 PORT="${!port_var}" PUBLIC_URL="$OPENRAIL_URL" DATABASE_URL="$DATABASE_URL" \
      OPENRAIL_MASTER_KEY="$OPENRAIL_MASTER_KEY" OPENRAIL_OWNER_TOKEN="$OPENRAIL_OWNER_TOKEN" \
      OPENRAIL_DEMO=off OPENRAIL_DATA_DIR="$dir/data" OPENRAIL_TRUST_PROXY=127.0.0.1 NODE_ENV=development \
      HA_CLUSTER_DIR="$STATE" setsid node "$REPO/bin/openrail.js" serve --workers 1 >"$dir/openrail.log" 2>&1 </dev/null &
    echo $! >"$STATE/pids/openrail$n.pid"
  )
}

up_exit() {
  [ -z "$UP_DONE" ] || return 0
  trap - EXIT
  say "up failed after $(elapsed) s (exit status $1)"
  show_log_tails
  if [ "${HA_KEEP_ON_FAILURE:-}" = 1 ]; then
    say "left running for inspection: $0 down $STATE"
  else
    down_now
  fi
  exit "$1"
}

show_log_tails() {
  for log in "$STATE"/etcd/etcd.log "$STATE"/pg*/patroni.log "$STATE"/pg*/data/log/*.log "$STATE"/haproxy/haproxy.log "$STATE"/openrail*/openrail.log; do
    [ -f "$log" ] || continue
    echo "--- last lines of $log" >&2
    tail -n 15 "$log" >&2
  done
}

up() {
  resolve_state_for_up "${1:-}"
  for tool in etcd patroni patronictl haproxy curl node "$PG_BIN/postgres" "$PG_BIN/psql"; do
    command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (Debian: apt-get install patroni etcd-server python3-etcd haproxy postgresql-15 curl)"
  done
  T0=$EPOCHREALTIME
  # The state directory holds passwords and keys: nothing in it is readable by others.
  umask 077
  mkdir -p "$STATE/pids" "$STATE/etcd" "$STATE/haproxy"
  # ... but the database user must be able to reach its own directories inside.
  chmod 711 "$STATE"
  write_env
  say "state directory $STATE"
  # A failed or interrupted `up` shows the logs' last lines and stops what it started
  # (HA_KEEP_ON_FAILURE=1 leaves it all for inspection).
  UP_DONE=
  trap 'up_exit $?' EXIT

  if [ "$RUN_AS" != "$(id -un)" ]; then
    setpriv --reuid="$RUN_AS" --regid="$RUN_AS" --init-groups test -x "$STATE" ||
      fail "the '$RUN_AS' user cannot enter $STATE: choose a state directory under a path it can traverse, such as /tmp"
  fi

  start_daemon etcd "$STATE/etcd/etcd.log" etcd --name etcd1 --data-dir "$STATE/etcd/data" \
    --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "etcd1=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-token "$SCOPE" --initial-cluster-state new \
    --logger zap --log-outputs stderr --log-level warn
  wait_for "etcd's /health" "$UP_LIMIT" http_ok "http://127.0.0.1:$ETCD_CLIENT_PORT/health"
  say "etcd healthy at $(elapsed) s"

  write_patroni_config 1 "$PG1_PORT" "$PATRONI1_REST_PORT"
  write_patroni_config 2 "$PG2_PORT" "$PATRONI2_REST_PORT"
  # Both start at once: the first to take the initialize key in etcd runs initdb and becomes the
  # leader, the other clones it with pg_basebackup and follows.
  for i in 1 2; do
    start_daemon "patroni$i" "$STATE/pg$i/patroni.log" "${AS_DB_USER[@]}" env HOME="$STATE/pg$i" patroni "$STATE/pg$i/patroni.yml"
  done

  write_haproxy_config
  HA_CLUSTER_DIR=$STATE haproxy -D -p "$STATE/pids/haproxy.pid" -f "$STATE/haproxy/haproxy.cfg" >"$STATE/haproxy/haproxy.log" 2>&1 </dev/null
  # haproxy -D forks its own daemon; the environment marker is on it all the same.

  wait_for "a write through HAProxy" "$UP_LIMIT" probe_write
  say "first write through HAProxy at $(elapsed) s"
  wait_for "a streaming synchronous standby" "$UP_LIMIT" sync_standby_streaming
  say "synchronous standby streaming at $(elapsed) s"

  # pg_monitor: the nodes' ops/health sees the standbys' state and lag (docs/high-availability.md).
  psql_front -c "CREATE ROLE openrail LOGIN PASSWORD '$OPENRAIL_DB_PASSWORD'" -c 'GRANT pg_monitor TO openrail' \
    -c 'CREATE DATABASE openrail OWNER openrail'
  node_extras
  # All three start together: the migrations run under PostgreSQL's advisory lock, one node at a time.
  for n in $(seq 1 "$OPENRAIL_NODES"); do start_openrail "$n"; done
  for n in $(seq 1 "$OPENRAIL_NODES"); do
    local port_var="OPENRAIL${n}_PORT"
    wait_for "openrail$n's /readyz" "$UP_LIMIT" http_ok "http://127.0.0.1:${!port_var}/readyz"
  done
  wait_for "/readyz through the openrail front end" "$UP_LIMIT" http_ok "$OPENRAIL_URL/readyz"
  say "openrail nodes ready at $(elapsed) s"
  UP_DONE=1

  say "up in $(elapsed) s"
  echo "HA_DIR=$STATE"
  echo "openrail:   $OPENRAIL_URL  (owner token in $STATE/cluster.env)"
  echo "PostgreSQL: 127.0.0.1:$HAPROXY_PG_PORT (HAProxy, the primary)   HAProxy stats: http://127.0.0.1:$HAPROXY_STATS_PORT/"
  echo "then:       $0 status $STATE    $0 down $STATE"
}

# ---------------------------------------------------------------------------------------------
# status

status() {
  resolve_state_existing "${1:-}"
  local bad=0
  echo "state directory: $STATE"
  echo
  patronictl_ list || bad=1
  echo
  echo "HAProxy (backend server status):"
  if curl -fsS --max-time 2 "http://127.0.0.1:$HAPROXY_STATS_PORT/;csv" >"$STATE/.stats.csv" 2>/dev/null; then
    awk -F, '$1 != "stats" && $2 != "FRONTEND" && $2 != "BACKEND" && $1 !~ /^#/ { printf "  %-10s %-10s %s\n", $1, $2, $18 }' "$STATE/.stats.csv"
    rm -f "$STATE/.stats.csv"
  else
    echo "  not answering on $HAPROXY_STATS_PORT"
    bad=1
  fi
  echo
  echo "openrail nodes (GET /readyz):"
  for n in $(seq 1 "$OPENRAIL_NODES"); do
    local port_var="OPENRAIL${n}_PORT" code
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:${!port_var}/readyz" || true)
    printf '  openrail%s  127.0.0.1:%s  pid %s  %s\n' "$n" "${!port_var}" "$(pid_of "openrail$n")" "$code"
    [ "$code" = 200 ] || bad=1
  done
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$OPENRAIL_URL/readyz" || true)
  printf '  front end  %s  %s\n' "$OPENRAIL_URL" "$code"
  [ "$code" = 200 ] || bad=1
  return $bad
}

# ---------------------------------------------------------------------------------------------
# down

down() {
  resolve_state_existing "${1:-}"
  T0=$EPOCHREALTIME
  down_now
}

down_now() {
  set +e
  local n pid stopping
  # Stopped side by side; `wait` names the stoppers, not the daemons a failed `up` started here.
  stopping=()
  for n in $(seq 1 "$OPENRAIL_NODES"); do
    stop_pid "$(pid_of "openrail$n")" TERM 15 "openrail$n" &
    stopping+=($!)
  done
  wait "${stopping[@]}"
  say "openrail nodes stopped at $(elapsed) s"
  stop_pid "$(pid_of haproxy)" TERM 5 haproxy
  # Patroni stops its PostgreSQL on SIGTERM; the postmaster is detached from Patroni, so one that
  # outlives it (Patroni killed, or its shutdown cut short) is stopped by the PID in postmaster.pid.
  stopping=()
  for n in 1 2; do
    stop_pid "$(pid_of "patroni$n")" TERM 30 "patroni$n" &
    stopping+=($!)
  done
  wait "${stopping[@]}"
  for n in 1 2; do
    pid=$(head -n1 "$STATE/pg$n/data/postmaster.pid" 2>/dev/null)
    alive "$pid" && say "pg$n's postmaster (pid $pid) outlived Patroni: fast shutdown"
    stop_pid "$pid" INT 20 "pg$n's postmaster"
  done
  say "Patroni and PostgreSQL stopped at $(elapsed) s"
  stop_pid "$(pid_of etcd)" TERM 10 etcd
  say "etcd stopped at $(elapsed) s"
  local left
  left=$(leftovers)
  if [ -n "$left" ]; then
    say "still running from $STATE, killed: $(echo $left)"
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null
    sleep 0.5
  fi
  rm -rf "$STATE"
  say "down in $(elapsed) s: $STATE removed"
}

case "${1:-}" in
  up) up "${2:-}" ;;
  status) status "${2:-}" ;;
  down) down "${2:-}" ;;
  *)
    echo "usage: $0 up|status|down [state-dir]" >&2
    exit 2
    ;;
esac
