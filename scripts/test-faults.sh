#!/usr/bin/env bash
# npm run test:faults: the fault run of issue 17 ("No order is ever stranded"), on a stack of its
# own so it never disturbs `npm test` or `npm run up`:
#
#   Temporal    its own dev server on 127.0.0.1:7243 (UI :8243), SQLite file in a temp dir,
#               namespace labflow-faults with the keyword search attributes
#   Postgres    database labflow_faults (dropped, created and migrated every run)
#   Redis       its own redis-server on 127.0.0.1:6390 (CLIENT PAUSE must not pause anyone
#               else's Redis); without redis-server, db 3 of the machine's Redis (flushed)
#   processes   API :8140, management API :8141, the worker, labflow's HL7 listener :8144 (worker
#               role hl7) and the sandbox HL7 lab :8145 (worker role sandbox-hl7-lab) (node
#               dist/src/*.js), started, SIGKILLed and restarted by the runner (test/faults/run.ts),
#               which also plays a scripted HL7 lab on :8146
#
# Then 80 sandbox orders (20 per collection method) are simulated at once under a fault schedule,
# and 16 on-site orders go to the two HL7 labs (down when the orders are placed, a dropped
# connection, a missing ACK, results twice, out of order, after the final and for no order, the
# listener killed while the lab sends). The run asserts that every order completes, none is
# stranded, no transition happens twice, no webhook event or HL7 message is lost or taken twice,
# lost workflows are healed once and a revoked key is refused at once.
#
# npm run test:replicas (FAULTS_RUN=replicas) runs the same with FAULTS_REPLICAS=2 (two API replicas
# on :8160 and :8170, two workers) and LABFLOW_TEMPORAL=server: the Temporal server itself
# (scripts/temporal-server.sh) on PostgreSQL (databases labflow_replicas_temporal and
# labflow_replicas_temporal_visibility, recreated every run) instead of the dev server, killed and
# restarted the same way. The two runs share nothing (ports, databases, Redis server, Temporal,
# state dir .labflow/<run>), so both can run at once. Each ends with `faults: N passed, N failed`;
# the exit code is 0 only when nothing failed. Logs: .labflow/faults/logs/ (.labflow/replicas/logs/).
# Ctrl-C stops everything it started.
#
# Settings (environment), defaults for the faults run (replicas run in brackets):
# FAULTS_TEMPORAL_PORT 7243 [7343], FAULTS_TEMPORAL_UI_PORT 8243 [8343], FAULTS_API_PORT 8140 [8160],
# FAULTS_MANAGEMENT_PORT (API + 1), FAULTS_HL7_LISTENER_PORT (API + 4), FAULTS_SANDBOX_HL7_LAB_PORT
# (API + 5), FAULTS_HL7_LAB_PORT (API + 6), FAULTS_REDIS_PORT 6390 [6391], FAULTS_REDIS_DB 3 [4]
# (without redis-server), FAULTS_DATABASE labflow_faults [labflow_replicas], FAULTS_REPLICAS (1),
# FAULTS_ORDERS_PER_METHOD (20), FAULTS_HL7 (1; 0 leaves the HL7 labs out), FAULTS_HL7_ORDERS (8 per
# HL7 lab), FAULTS_HL7_LAB_DOWN_SECONDS (30), FAULTS_HL7_LISTENER_DOWN_SECONDS (5),
# FAULTS_DEADLINE_SECONDS (600, from the start of the simulations), FAULTS_QUIET_SECONDS (60: stop
# waiting once nothing moved this long), FAULTS_BUILD (1; 0 reuses dist/ as it is), FAULTS_PROFILE_DIR
# (unset; a directory: every node process of the run writes CPU profiles there, test/faults/processes.ts).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$LABFLOW_ROOT"
# Functions and settings only (no mode argument: nothing is brought up by sourcing it).
# shellcheck source=scripts/stack.sh
source "$LABFLOW_ROOT/scripts/stack.sh"

# The two runs (FAULTS_RUN faults, replicas) have stacks apart (ports, database, Redis, Temporal
# namespace and task queue, state dir), so both can run at once (.ci/fault-runs, CI_FAULTS_CONCURRENT=1).
FAULTS_RUN=${FAULTS_RUN:-faults}
case "$FAULTS_RUN" in
  faults) defaults=(7243 8243 8140 6390 3) ;;
  replicas) defaults=(7343 8343 8160 6391 4) ;;
  *) fail "FAULTS_RUN=$FAULTS_RUN is neither faults nor replicas" "unset FAULTS_RUN" ;;
esac
FAULTS_TEMPORAL_PORT=${FAULTS_TEMPORAL_PORT:-${defaults[0]}}
FAULTS_TEMPORAL_UI_PORT=${FAULTS_TEMPORAL_UI_PORT:-${defaults[1]}}
FAULTS_API_PORT=${FAULTS_API_PORT:-${defaults[2]}}
FAULTS_MANAGEMENT_PORT=${FAULTS_MANAGEMENT_PORT:-$((FAULTS_API_PORT + 1))}
# labflow's HL7 listener, the sandbox HL7 lab and the runner's scripted lab sit next to the API.
FAULTS_HL7_LISTENER_PORT=${FAULTS_HL7_LISTENER_PORT:-$((FAULTS_API_PORT + 4))}
FAULTS_SANDBOX_HL7_LAB_PORT=${FAULTS_SANDBOX_HL7_LAB_PORT:-$((FAULTS_API_PORT + 5))}
FAULTS_HL7_LAB_PORT=${FAULTS_HL7_LAB_PORT:-$((FAULTS_API_PORT + 6))}
FAULTS_REDIS_PORT=${FAULTS_REDIS_PORT:-${defaults[3]}}
FAULTS_REDIS_DB=${FAULTS_REDIS_DB:-${defaults[4]}}
FAULTS_DATABASE=${FAULTS_DATABASE:-labflow_$FAULTS_RUN}
FAULTS_NAMESPACE=labflow-$FAULTS_RUN
FAULTS_REPLICAS=${FAULTS_REPLICAS:-1}
FAULTS_STATE="$LABFLOW_STATE_DIR/$FAULTS_RUN"
FAULTS_LOG_DIR="$FAULTS_STATE/logs"

[[ "$FAULTS_DATABASE" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || fail "FAULTS_DATABASE=$FAULTS_DATABASE is not a plain database name" "unset FAULTS_DATABASE"
case "$FAULTS_DATABASE" in
  labflow | labflow_test) fail "FAULTS_DATABASE must not be $FAULTS_DATABASE (the fault run drops it)" "unset FAULTS_DATABASE" ;;
esac

FAULTS_TMP=""
REDIS_PID=""
RUNNER_PID=""
STOPPING=0

# Stops what this script (or the runner, which records the Temporal pid it restarted in the pid
# file) started; the temp dir with the Temporal SQLite file goes too. Logs stay.
cleanup() {
  local rc=$? pid
  ((STOPPING)) && return 0
  STOPPING=1
  trap '' INT TERM HUP
  if pid_alive "$RUNNER_PID"; then
    # The runner stops its node processes itself on SIGTERM.
    stop_pid "$RUNNER_PID" "fault runner" 30
  fi
  if [[ -n "$FAULTS_TMP" && -f "$FAULTS_TMP/temporal.pid" ]]; then
    pid=$(cat "$FAULTS_TMP/temporal.pid" 2>/dev/null || true)
    if pid_alive "$pid"; then stop_pid "$pid" "fault-run Temporal dev server" 20; fi
    # The runner SIGKILLed the server this script started (and runs another, stopped above).
    if [[ -n "${LABFLOW_TEMPORAL_PID:-}" && "$pid" != "$LABFLOW_TEMPORAL_PID" ]]; then LABFLOW_STARTED_TEMPORAL=0; fi
  fi
  if declare -F stack_temporal_down >/dev/null; then stack_temporal_down; fi
  if pid_alive "$REDIS_PID"; then stop_pid "$REDIS_PID" "fault-run redis-server" 10; fi
  if [[ -n "$FAULTS_TMP" && -d "$FAULTS_TMP" ]]; then rm -rf "$FAULTS_TMP"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

have node || fail "node is missing" "install Node.js 20"
stack_npm_install
stack_services

[[ "$FAULTS_REPLICAS" =~ ^[1-9]$ ]] || fail "FAULTS_REPLICAS=$FAULTS_REPLICAS is not a number of replicas from 1 to 9" "FAULTS_REPLICAS=2"
for spec in "$FAULTS_TEMPORAL_PORT:fault-run Temporal" "$FAULTS_TEMPORAL_UI_PORT:fault-run Temporal UI" \
  "$FAULTS_MANAGEMENT_PORT:fault-run management API" "$FAULTS_HL7_LISTENER_PORT:fault-run HL7 listener" \
  "$FAULTS_SANDBOX_HL7_LAB_PORT:fault-run sandbox HL7 lab" "$FAULTS_HL7_LAB_PORT:fault-run scripted HL7 lab"; do
  require_free_port "${spec%%:*}" "${spec#*:}"
done
for ((replica = 0; replica < FAULTS_REPLICAS; replica++)); do
  require_free_port "$((FAULTS_API_PORT + 10 * replica))" "fault-run API replica $((replica + 1))"
done

FAULTS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/labflow-$FAULTS_RUN.XXXXXX")
rm -rf "$FAULTS_LOG_DIR" "$FAULTS_STATE/temporal-server"
mkdir -p "$FAULTS_LOG_DIR"
chmod 700 "$LABFLOW_STATE_DIR" 2>/dev/null || true

# --- Redis: a server of its own when possible ----------------------------------------------------
if have redis-server; then
  require_free_port "$FAULTS_REDIS_PORT" "fault-run redis-server"
  setsid redis-server --bind 127.0.0.1 --port "$FAULTS_REDIS_PORT" --save "" --appendonly no \
    --dir "$FAULTS_TMP" </dev/null >"$FAULTS_LOG_DIR/redis.log" 2>&1 &
  REDIS_PID=$!
  wait_for_port 127.0.0.1 "$FAULTS_REDIS_PORT" 20 || fail "the fault-run redis-server did not start (see $FAULTS_LOG_DIR/redis.log)"
  LABFLOW_REDIS_PORT=$FAULTS_REDIS_PORT
  say "redis-server of the fault run on 127.0.0.1:$FAULTS_REDIS_PORT (pid $REDIS_PID)"
else
  say "redis-server not found: using db $FAULTS_REDIS_DB of the machine's Redis (its CLIENT PAUSE pauses every client of that server for 12 s)"
fi
redis_flushdb "$FAULTS_REDIS_DB" || fail "could not empty Redis db $FAULTS_REDIS_DB on port $LABFLOW_REDIS_PORT"

# --- Temporal: its own dev server, or Temporal server (stack.sh's bring-up with other settings) --
LABFLOW_TEMPORAL_PORT=$FAULTS_TEMPORAL_PORT
LABFLOW_TEMPORAL_UI_PORT=$FAULTS_TEMPORAL_UI_PORT
LABFLOW_TEMPORAL_ADDR="$LABFLOW_TEMPORAL_IP:$LABFLOW_TEMPORAL_PORT"
LABFLOW_NAMESPACES=("$FAULTS_NAMESPACE")
LABFLOW_TEMPORAL_DB="$FAULTS_TMP/temporal.sqlite"
LABFLOW_TEMPORAL_PIDFILE="$FAULTS_TMP/temporal.pid"
LABFLOW_TEMPORAL_LOG="$FAULTS_LOG_DIR/temporal.log"
LABFLOW_TEMPORAL_CODEC_ENDPOINT="http://127.0.0.1:$FAULTS_MANAGEMENT_PORT/codec"
LABFLOW_STARTED_TEMPORAL=0
if [[ "$LABFLOW_TEMPORAL" == server ]]; then
  # The server's state: its own two databases (recreated: every run starts from nothing), config
  # and log beside the run's logs, pid file where the runner writes the restarted server's pid.
  LABFLOW_TEMPORAL_SERVER_DB=${FAULTS_DATABASE}_temporal
  LABFLOW_TEMPORAL_SERVER_VISIBILITY_DB=${FAULTS_DATABASE}_temporal_visibility
  LABFLOW_TEMPORAL_SERVER_MAX_CONNS=6
  LABFLOW_TEMPORAL_SERVER_VISIBILITY_MAX_CONNS=3
  LABFLOW_TEMPORAL_SERVER_DIR="$FAULTS_STATE/temporal-server"
  LABFLOW_TEMPORAL_SERVER_PIDFILE=$LABFLOW_TEMPORAL_PIDFILE
  LABFLOW_TEMPORAL_UI_PIDFILE="$FAULTS_TMP/temporal-ui.pid"
  LABFLOW_TEMPORAL_LOG="$LABFLOW_TEMPORAL_SERVER_DIR/server.log"
  for db in "$LABFLOW_TEMPORAL_SERVER_DB" "$LABFLOW_TEMPORAL_SERVER_VISIBILITY_DB"; do
    psql_admin -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null || fail "could not drop database $db"
  done
fi
stack_temporal_up
[[ "$LABFLOW_STARTED_TEMPORAL" == 1 ]] || fail "the fault run must start its own Temporal $LABFLOW_TEMPORAL server on $LABFLOW_TEMPORAL_ADDR" "stop what answers there"
# The runner SIGKILLs it on purpose: no "Killed" job notice from this shell.
disown "$LABFLOW_TEMPORAL_PID" 2>/dev/null || true
stack_temporal_command
# The runner restarts the server with this exact command line (one argument per line), and asks
# the CLI whether it is healthy.
FAULTS_TEMPORAL_ARGV=$(printf '%s\n' "${LABFLOW_TEMPORAL_CMD[@]}")
FAULTS_TEMPORAL_CLI=$TEMPORAL_BIN

# --- settings of the fault-run processes --------------------------------------------------------
export NODE_ENV=test
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$FAULTS_DATABASE"
export REDIS_URL="redis://127.0.0.1:$LABFLOW_REDIS_PORT/$FAULTS_REDIS_DB"
export TEMPORAL_ADDRESS=$LABFLOW_TEMPORAL_ADDR
export TEMPORAL_NAMESPACE=$FAULTS_NAMESPACE
export TEMPORAL_TASK_QUEUE=labflow-$FAULTS_RUN
export TEMPORAL_UI_URL="http://127.0.0.1:$FAULTS_TEMPORAL_UI_PORT"
export CODEC_CORS_ORIGINS="http://127.0.0.1:$FAULTS_TEMPORAL_UI_PORT,http://localhost:$FAULTS_TEMPORAL_UI_PORT"
export API_HOST=127.0.0.1
export API_PORT=$FAULTS_API_PORT
export MANAGEMENT_PORT=$FAULTS_MANAGEMENT_PORT
# The worker's health/metrics port: any free one (nothing here reads it).
export WORKER_HEALTH_PORT=0
export PUBLIC_API_URL="http://127.0.0.1:$FAULTS_API_PORT"
PHI_ENCRYPTION_KEY=$(random_key)
export PHI_ENCRYPTION_KEY
export LOG_REQUESTS=false
# Both runs at once under Postgres's default max_connections of 100: the replicas run's five
# labflow processes (two APIs, management, two workers) x 5, its HL7 listener and sandbox lab x 2,
# the runner's 3 and the Temporal server's 4 x (6 + 3) = 68; the fault run's three processes x 5,
# its two HL7 processes x 2 and the runner's 3 = 22.
export DATABASE_POOL_MAX=5
export WEBHOOK_RETRY_SCHEDULE=0s,1s,2s,3s,5s,5s,10s,10s
export WEBHOOK_DELIVERY_TIMEOUT=5s
export ALLOW_PRIVATE_WEBHOOK_URLS=true
export EVENTS_RELAY_POLL_INTERVAL=500ms
export EVENTS_SWEEP_INTERVAL=5s
export EVENTS_LOST_JOB_GRACE=20s
export EVENTS_JOB_LOCK=10s
export SANDBOX_STEP_DELAY=1s
# The sandbox partners of /test call the API's signed partner webhooks over HTTP (at
# PUBLIC_API_URL); the production-environment callbacks that secret would also turn on stay off.
PARTNER_WEBHOOK_SECRET=$(random_key)
export PARTNER_WEBHOOK_SECRET SANDBOX_CALLBACKS=false
export APPOINTMENT_PROVIDER_STEP_DELAY=1s
export RECONCILER_INTERVAL=3s
export RECONCILER_GRACE=3s
# Stalled workflows are raised within the run (newer reconciler; older code ignores it).
export RECONCILER_STALL_HORIZON=45s
export RETENTION_SWEEP_INTERVAL=0s
# Link Migration's connections: a short backfill, and the bulk historical pull paced to run under the faults.
export CONNECTION_BACKFILL_DAYS=2
export LINK_BULK_PULL_BATCH=2
export LINK_BULK_PULL_INTERVAL=2s
# A step a killed worker was running is retried once its heartbeats stop for this long.
export LINK_BULK_HEARTBEAT_TIMEOUT=5s
# HL7 labs (test/faults/hl7-lab.ts): an order message the lab never ACKs is sent again after 5 s;
# a frame the lab begins and never ends is refused after 2 s.
export HL7_ACK_TIMEOUT=5s
export HL7_FRAME_TIMEOUT=2s
export FAULTS_TEMPORAL_ARGV FAULTS_TEMPORAL_CLI FAULTS_LOG_DIR FAULTS_REPLICAS FAULTS_RUN
export FAULTS_HL7_LISTENER_PORT FAULTS_SANDBOX_HL7_LAB_PORT FAULTS_HL7_LAB_PORT
export FAULTS_TEMPORAL_PIDFILE=$LABFLOW_TEMPORAL_PIDFILE
export FAULTS_TEMPORAL_LOG=$LABFLOW_TEMPORAL_LOG
unset LABFLOW_WORKFLOW_BUNDLE

# --- database, build, migrations ----------------------------------------------------------------
psql_admin -c "DROP DATABASE IF EXISTS \"$FAULTS_DATABASE\" WITH (FORCE)" >/dev/null ||
  fail "could not drop database $FAULTS_DATABASE" "psql -h 127.0.0.1 -U postgres -c 'DROP DATABASE \"$FAULTS_DATABASE\" WITH (FORCE)'"
psql_admin -c "CREATE DATABASE \"$FAULTS_DATABASE\"" >/dev/null ||
  fail "could not create database $FAULTS_DATABASE" "psql -h 127.0.0.1 -U postgres -c 'CREATE DATABASE \"$FAULTS_DATABASE\"'"
say "database $FAULTS_DATABASE recreated"
if [[ "${FAULTS_BUILD:-1}" != 0 || ! -f dist/src/main.js ]]; then stack_build; fi
for script in dist/src/main.js dist/src/management.js dist/src/worker.js dist/scripts/build-workflows.js; do
  [[ -f "$script" ]] || fail "$script is missing" "npm run build"
done
# One bundle of the workflows for every worker process of the run and their restarts, which
# would each bundle workflows/ at start otherwise (seconds of CPU each).
node dist/scripts/build-workflows.js "$FAULTS_TMP/workflow-bundle.js" >"$FAULTS_LOG_DIR/workflow-bundle.log" 2>&1 ||
  fail "bundling the workflows failed ($FAULTS_LOG_DIR/workflow-bundle.log)" "npm run build"
export WORKFLOW_BUNDLE="$FAULTS_TMP/workflow-bundle.js"
if ! (stack_migrate) >"$FAULTS_LOG_DIR/migrate.log" 2>&1; then
  tail -n 20 "$FAULTS_LOG_DIR/migrate.log" >&2
  fail "migrations of $FAULTS_DATABASE failed (above; $FAULTS_LOG_DIR/migrate.log)"
fi

# --- the run --------------------------------------------------------------------------------------
say "fault run: Temporal $TEMPORAL_ADDRESS (namespace $TEMPORAL_NAMESPACE, UI $TEMPORAL_UI_URL), database $FAULTS_DATABASE, Redis $REDIS_URL, logs $FAULTS_LOG_DIR"
set +e
nbin ts-node --swc test/faults/run.ts </dev/null &
RUNNER_PID=$!
wait "$RUNNER_PID"
rc=$?
# A signal interrupted `wait` (Ctrl-C): let the trap stop the runner.
set -e
exit "$rc"
