#!/usr/bin/env bash
# npm run up: the whole labflow stack on this machine, in the foreground.
# Brings the stack up (scripts/stack.sh dev), seeds the demo org/team/keys, starts the API,
# the management API and the worker, prints where everything is, then waits. Ctrl-C stops the
# three node processes (the worker drains) and the Temporal dev server if this script started it.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$LABFLOW_ROOT"

# npm run up -- --temporal=server: the Temporal server on PostgreSQL instead of the dev server
# (scripts/temporal-server.sh); the same as LABFLOW_TEMPORAL=server.
for arg in "$@"; do
  case "$arg" in
    --temporal=dev | --temporal=server) export LABFLOW_TEMPORAL=${arg#--temporal=} ;;
    *) fail "unknown option $arg" "npm run up [-- --temporal=dev|server]" ;;
  esac
done

PIDS=()
NAMES=()
STOPPING=0

cleanup() {
  local rc=$? i
  ((STOPPING)) && return 0
  STOPPING=1
  trap '' INT TERM HUP
  if ((${#PIDS[@]})); then
    say "stopping ${NAMES[*]}"
    for i in "${!PIDS[@]}"; do
      pid_alive "${PIDS[$i]}" && kill -TERM "${PIDS[$i]}" 2>/dev/null || true
    done
    # The worker drains running activities before it exits; allow it 30 s.
    for i in "${!PIDS[@]}"; do
      stop_pid "${PIDS[$i]}" "${NAMES[$i]}" 30
    done
  fi
  if declare -F stack_temporal_down >/dev/null; then stack_temporal_down; fi
  ((${#PIDS[@]})) && say "stopped"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Refuse early (before any work) when the app ports are taken, e.g. by an earlier `npm run up`.
API_PORT_WANTED=${API_PORT:-8000}
MANAGEMENT_PORT_WANTED=${MANAGEMENT_PORT:-8001}
if [[ -f .labflow/env ]]; then
  API_PORT_WANTED=${API_PORT:-$(sed -n 's/^API_PORT=//p' .labflow/env | tail -n1)}
  MANAGEMENT_PORT_WANTED=${MANAGEMENT_PORT:-$(sed -n 's/^MANAGEMENT_PORT=//p' .labflow/env | tail -n1)}
fi
require_free_port "${API_PORT_WANTED:-8000}" "labflow API"
require_free_port "${MANAGEMENT_PORT_WANTED:-8001}" "labflow management API"

# shellcheck source=scripts/stack.sh
source "$LABFLOW_ROOT/scripts/stack.sh" dev

API_PORT=${API_PORT:-8000}
MANAGEMENT_PORT=${MANAGEMENT_PORT:-8001}
require_free_port "$API_PORT" "labflow API"
require_free_port "$MANAGEMENT_PORT" "labflow management API"
WORKER_HEALTH_PORT=${WORKER_HEALTH_PORT:-8002}
require_free_port "$WORKER_HEALTH_PORT" "labflow worker (health and metrics)"

node dist/scripts/seed.js
TEAM_KEY=$(node -e "process.stdout.write(require('./.labflow/demo-keys.json').team_api_key)")

LOG_DIR="$LABFLOW_STATE_DIR/logs"
mkdir -p "$LOG_DIR"
# Human-readable log lines for the log files of a developer's stack (JSON stays the default).
export LOG_FORMAT=${LOG_FORMAT:-pretty}

# start NAME SCRIPT: a node process in its own session (Ctrl-C reaches only this script, which
# stops the processes in order), output to .labflow/logs/NAME.log.
start() {
  local name=$1 script=$2
  shift 2
  [[ -f "$script" ]] || fail "$script is missing" "npm run build"
  setsid node --enable-source-maps "$@" "$script" </dev/null >"$LOG_DIR/$name.log" 2>&1 &
  PIDS+=("$!")
  NAMES+=("$name")
}
# The API with a larger young generation (V8 semi-spaces of 32 MB, default 16): a timeseries
# ingestion request keeps tens of thousands of parsed samples alive across its database round
# trips, and with small semi-spaces every scavenge copies them (bench:health-data: the API's CPU
# per sample about a quarter lower). Without allocation-site pretenuring: V8 otherwise decides,
# from the survivors of a few early scavenges, to allocate whole sites (pg's rows, their Dates)
# straight into the old generation, and from then on every request's rows live there until a
# full GC, and keep what they point to alive through each scavenge (a page of 50 users: scavenges
# of ~10 ms instead of ~2, ~15% more CPU a request; docs/performance.md). The same flags in
# package.json (start:api), the Dockerfile, docker-compose.yml and the Helm chart.
# The sandbox partners of POST /v3/order/{id}/test run in the worker and call the API's signed
# partner webhooks over HTTP, as real couriers, labs and appointment providers do: the API and
# the worker share a partner webhook secret (a fresh one per run unless .labflow/env sets one),
# and the worker calls the API on this machine.
export PARTNER_WEBHOOK_SECRET=${PARTNER_WEBHOOK_SECRET:-$(random_key)}
export SANDBOX_PARTNERS_API_URL=${SANDBOX_PARTNERS_API_URL:-http://127.0.0.1:$API_PORT}
start api dist/src/main.js --max-semi-space-size=32 --no-allocation-site-pretenuring
start management dist/src/management.js
start worker dist/src/worker.js

# died: the name of a process that exited, if any.
died() {
  local i
  for i in "${!PIDS[@]}"; do
    if ! pid_alive "${PIDS[$i]}"; then
      printf '%s' "${NAMES[$i]}"
      return 0
    fi
  done
  return 1
}

wait_healthy() {
  local url=$1 what=$2 deadline=$((SECONDS + 90)) name
  until http_ok "$url"; do
    if name=$(died); then
      tail -n 20 "$LOG_DIR/$name.log" >&2 || true
      fail "the $name process exited during start-up (log above)" "read $LOG_DIR/$name.log"
    fi
    ((SECONDS >= deadline)) && fail "$what did not answer on $url within 90 s" "read $LOG_DIR/*.log"
    sleep 0.5
  done
}
say "waiting for the API, the management API and the worker"
wait_healthy "http://127.0.0.1:$API_PORT/health/ready" "the API"
wait_healthy "http://127.0.0.1:$MANAGEMENT_PORT/health/ready" "the management API"
wait_healthy "http://127.0.0.1:$WORKER_HEALTH_PORT/health/ready" "the worker"
if name=$(died); then
  tail -n 20 "$LOG_DIR/$name.log" >&2 || true
  fail "the $name process exited during start-up (log above)" "read $LOG_DIR/$name.log"
fi

# A demo patient with a test-kit order, made through the API, and a portal link to that order.
if ! PORTAL_URL=$(node dist/scripts/demo-patient.js "http://127.0.0.1:$API_PORT"); then
  PORTAL_URL="http://127.0.0.1:$API_PORT/portal   (the demo patient could not be made: see above; links come from POST /v2/user/{user_id}/create_portal_url)"
fi

cat <<EOF

  labflow is up.

  API                 http://127.0.0.1:$API_PORT
  OpenAPI docs        http://127.0.0.1:$API_PORT/docs   (JSON: http://127.0.0.1:$API_PORT/openapi.json)
  Management API      http://127.0.0.1:$MANAGEMENT_PORT   (docs: http://127.0.0.1:$MANAGEMENT_PORT/docs)
  Temporal UI         $TEMPORAL_UI_URL   (namespace: $TEMPORAL_NAMESPACE; Temporal: $LABFLOW_TEMPORAL at $TEMPORAL_ADDRESS)
  Patient portal      $PORTAL_URL
                      (the demo patient's order; the one-time code it asks for: http://127.0.0.1:$API_PORT/portal/dev/outbox)
  Probes and metrics  /health/live, /health/ready, /metrics on each: API, management, worker http://127.0.0.1:$WORKER_HEALTH_PORT
  Logs                $LOG_DIR/{api,management,worker}.log
  Demo keys           $LABFLOW_STATE_DIR/demo-keys.json

  Create a user:
  curl -s -X POST http://127.0.0.1:$API_PORT/v2/user -H 'x-service-api-key: $TEAM_KEY' -H 'content-type: application/json' -d '{"client_user_id":"demo-user-1"}'

  Ctrl-C stops everything this command started.

EOF

# Wait until Ctrl-C / SIGTERM, or until one of the processes exits on its own.
while true; do
  if name=$(died); then
    tail -n 20 "$LOG_DIR/$name.log" >&2 || true
    say "the $name process exited unexpectedly (log above: $LOG_DIR/$name.log); stopping the rest"
    exit 1
  fi
  sleep 1 &
  wait $! || true
done
