#!/usr/bin/env bash
# Idempotent bring-up of everything labflow needs on a developer or CI machine.
#
#   bash scripts/stack.sh dev|test      bring the stack up and leave Temporal running
#   source scripts/stack.sh dev|test    same, and keep the exported settings in this shell;
#                                       LABFLOW_STARTED_TEMPORAL=1 tells the caller it started
#                                       the Temporal dev server (stack_temporal_down stops it)
#
# Steps: npm dependencies, Temporal CLI + dev server (namespaces, search attributes),
# PostgreSQL and Redis checks, local settings, database, TypeScript build, migrations.
# Running it twice is harmless.

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/temporal-server.sh
source "$(dirname "${BASH_SOURCE[0]}")/temporal-server.sh"

# LABFLOW_TEMPORAL: `dev` (default) runs the Temporal CLI's dev server on 7233 (UI 8233); `server`
# runs the Temporal server itself on PostgreSQL (scripts/temporal-server.sh) on 7633 (UI 8633),
# so the two never pass for each other.
LABFLOW_TEMPORAL=${LABFLOW_TEMPORAL:-dev}
[[ "$LABFLOW_TEMPORAL" == dev || "$LABFLOW_TEMPORAL" == server ]] || fail "LABFLOW_TEMPORAL=$LABFLOW_TEMPORAL is neither dev nor server" "LABFLOW_TEMPORAL=server (or unset it)"
export LABFLOW_TEMPORAL
LABFLOW_TEMPORAL_IP=127.0.0.1
if [[ "$LABFLOW_TEMPORAL" == server ]]; then
  LABFLOW_TEMPORAL_PORT=7633
  LABFLOW_TEMPORAL_UI_PORT=8633
else
  LABFLOW_TEMPORAL_PORT=7233
  LABFLOW_TEMPORAL_UI_PORT=8233
fi
LABFLOW_TEMPORAL_ADDR="$LABFLOW_TEMPORAL_IP:$LABFLOW_TEMPORAL_PORT"
LABFLOW_NAMESPACES=(labflow labflow-test)
LABFLOW_SEARCH_ATTRIBUTES=(LabflowTeamId LabflowOrderStatus LabflowCollectionMethod LabflowLab LabflowLabReportStatus)
LABFLOW_TEMPORAL_PIDFILE="$LABFLOW_CACHE_DIR/temporal.pid"
LABFLOW_TEMPORAL_LOG="$LABFLOW_CACHE_DIR/temporal.log"
LABFLOW_TEMPORAL_DB="$LABFLOW_CACHE_DIR/temporal-dev.sqlite"
LABFLOW_TEMPORAL_CODEC_ENDPOINT="http://127.0.0.1:8001/codec"
LABFLOW_STARTED_TEMPORAL="${LABFLOW_STARTED_TEMPORAL:-0}"
LABFLOW_PG_HOST=127.0.0.1
LABFLOW_PG_PORT=5432
LABFLOW_REDIS_HOST=127.0.0.1
LABFLOW_REDIS_PORT=6379

PG_START_CMD="pg_ctlcluster --skip-systemctl-redirect \$(ls /etc/postgresql) main start"
REDIS_START_CMD="redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save \"\" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log"

# Run a project binary from node_modules/.bin (never lets npx offer to download anything).
nbin() {
  local tool=$1
  shift
  [[ -x "$LABFLOW_ROOT/node_modules/.bin/$tool" ]] || fail "node_modules/.bin/$tool is missing" "npm install"
  "$LABFLOW_ROOT/node_modules/.bin/$tool" "$@"
}

# --- npm dependencies ------------------------------------------------------------------------

stack_npm_install() {
  local root=$LABFLOW_ROOT marker="$LABFLOW_ROOT/node_modules/.labflow-installed" log want
  local lock="$root/package-lock.json"
  # The marker holds the hash of the lock (or package.json) node_modules was installed from: a
  # content check, not file times, so a fresh clone or a second worktree sharing node_modules
  # through a symlink does not reinstall what is already there.
  if [[ -f "$lock" ]]; then want=$(sha256sum "$lock"); else want=$(sha256sum "$root/package.json"); fi
  want=${want%% *}
  if [[ -d "$root/node_modules" && -f "$marker" && "$(cat "$marker")" == "$want" ]]; then
    return 0
  fi
  # Checkouts sharing one node_modules (a symlink) must not install into it at once: the second
  # waits for the first, then finds the marker written and installs nothing.
  local lock_fd real_modules
  # A node_modules shared through a symlink and installed from another lock belongs to the other
  # checkout: npm ci here would empty it under that checkout's running tests. Refuse instead.
  if [[ -L "$root/node_modules" && -f "$marker" ]]; then
    fail "node_modules is a symlink to $(realpath -m "$root/node_modules"), installed from another package-lock.json" \
      "rm $root/node_modules (the link only) and rerun, to install this checkout's own"
  fi
  real_modules=$(realpath -m "$root/node_modules")
  exec {lock_fd}>"/tmp/labflow-npm-install-$(sha256sum <<<"$real_modules" | cut -c1-16).lock"
  flock "$lock_fd"
  if [[ -d "$root/node_modules" && -f "$marker" && "$(cat "$marker")" == "$want" ]]; then
    exec {lock_fd}>&-
    return 0
  fi
  have npm || fail "npm is missing" "install Node.js 20 (which ships npm)"
  mkdir -p "$LABFLOW_STATE_DIR"
  log="$LABFLOW_STATE_DIR/npm-install.log"
  # Dependency install scripts are skipped on purpose (--ignore-scripts): npm 11 would skip
  # the unapproved ones anyway, and none is needed (@scarf/scarf is telemetry, @swc/core's
  # postinstall only checks its native binding, msgpackr-extract is an optional native speed-up
  # with a JS fallback, protobufjs's postinstall is a version check, tesseract.js's is a donation
  # notice). Nothing prompts.
  local flags=(--ignore-scripts --no-audit --no-fund --loglevel=error)
  if [[ -f "$lock" ]]; then
    say "installing npm dependencies (npm ci)"
    if ! (cd "$root" && CI=true npm ci "${flags[@]}" </dev/null >"$log" 2>&1); then
      if grep -q 'EUSAGE' "$log"; then
        # package-lock.json lacks entries for some other platforms' optional packages; npm ci
        # refuses such a lock, npm install accepts it. --no-save keeps the lock file untouched.
        say "npm ci refused package-lock.json (optional platform entries missing); using npm install --no-save"
        (cd "$root" && CI=true npm install --no-save "${flags[@]}" </dev/null >"$log" 2>&1) ||
          fail "npm install failed (see $log)" "cd $root && npm install"
      else
        fail "npm ci failed (see $log)" "cd $root && npm ci"
      fi
    fi
  else
    say "installing npm dependencies (npm install; no package-lock.json)"
    (cd "$root" && CI=true npm install "${flags[@]}" </dev/null >"$log" 2>&1) ||
      fail "npm install failed (see $log)" "cd $root && npm install"
  fi
  echo "$want" >"$marker"
  exec {lock_fd}>&-
}

# --- Temporal ----------------------------------------------------------------------------------

# Sets TEMPORAL_BIN: $TEMPORAL_CLI_PATH, `temporal` on PATH, the cache, or builds it into the cache.
stack_find_temporal() {
  local cached="$LABFLOW_CACHE_DIR/bin/temporal" gobin
  if [[ -n "${TEMPORAL_CLI_PATH:-}" ]]; then
    [[ -x "$TEMPORAL_CLI_PATH" ]] || fail "TEMPORAL_CLI_PATH=$TEMPORAL_CLI_PATH is not an executable file" "unset TEMPORAL_CLI_PATH or point it at the temporal binary"
    TEMPORAL_BIN=$TEMPORAL_CLI_PATH
  elif have temporal; then
    TEMPORAL_BIN=$(command -v temporal)
  elif [[ -x "$cached" ]]; then
    TEMPORAL_BIN=$cached
  else
    gobin=$(command -v go || true)
    [[ -z "$gobin" && -x "${LABFLOW_GO_FALLBACK:-/usr/local/go/bin/go}" ]] && gobin=${LABFLOW_GO_FALLBACK:-/usr/local/go/bin/go}
    [[ -n "$gobin" ]] || fail "the Temporal CLI is missing and Go is not installed to build it" "install Go (https://go.dev/dl), or put temporal on PATH, or set TEMPORAL_CLI_PATH"
    mkdir -p "$LABFLOW_CACHE_DIR/bin"
    say "building the Temporal CLI $LABFLOW_TEMPORAL_CLI_VERSION into $LABFLOW_CACHE_DIR/bin (go install, once; takes ~4 minutes)"
    GOBIN="$LABFLOW_CACHE_DIR/bin" "$gobin" install "github.com/temporalio/cli/cmd/temporal@$LABFLOW_TEMPORAL_CLI_VERSION" \
      </dev/null >"$LABFLOW_CACHE_DIR/temporal-build.log" 2>&1 ||
      fail "building the Temporal CLI failed (see $LABFLOW_CACHE_DIR/temporal-build.log)" "GOBIN=$LABFLOW_CACHE_DIR/bin go install github.com/temporalio/cli/cmd/temporal@$LABFLOW_TEMPORAL_CLI_VERSION"
    TEMPORAL_BIN=$cached
  fi
  export TEMPORAL_BIN
}

# The CLI reads TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE from the environment; keep the app's
# settings from leaking into it.
tcli() {
  env -u TEMPORAL_ADDRESS -u TEMPORAL_NAMESPACE -u TEMPORAL_API_KEY -u TEMPORAL_TLS "$TEMPORAL_BIN" "$@"
}

temporal_healthy() {
  tcli operator cluster health --address "$LABFLOW_TEMPORAL_ADDR" --command-timeout 3s >/dev/null 2>&1
}

# Makes sure both namespaces exist and carry the keyword search attributes (LABFLOW_SEARCH_ATTRIBUTES).
stack_temporal_ensure() {
  local ns sa out attempt
  for ns in "${LABFLOW_NAMESPACES[@]}"; do
    if ! tcli operator namespace describe --address "$LABFLOW_TEMPORAL_ADDR" --namespace "$ns" >/dev/null 2>&1; then
      out=$(tcli operator namespace create --address "$LABFLOW_TEMPORAL_ADDR" --namespace "$ns" 2>&1) ||
        grep -qi 'already exists' <<<"$out" ||
        fail "could not create Temporal namespace $ns: $(tail -n1 <<<"$out")" "$TEMPORAL_BIN operator namespace create --namespace $ns"
    fi
    for sa in "${LABFLOW_SEARCH_ATTRIBUTES[@]}"; do
      for attempt in 1 2 3 4 5 6 7 8 9 10; do
        if out=$(tcli operator search-attribute create --address "$LABFLOW_TEMPORAL_ADDR" --namespace "$ns" \
          --name "$sa" --type Keyword 2>&1) || grep -qi 'already exists' <<<"$out"; then
          break
        fi
        # A namespace created a moment ago may not be visible to every service yet.
        ((attempt == 10)) && fail "could not register search attribute $sa on namespace $ns: $(tail -n1 <<<"$out")" \
          "$TEMPORAL_BIN operator search-attribute create --namespace $ns --name $sa --type Keyword"
        sleep 1
      done
    done
  done
}

# Sets LABFLOW_TEMPORAL_CMD to the dev server's command line (the LABFLOW_TEMPORAL_* settings
# above: address, UI port, SQLite file, codec endpoint, namespaces and search attributes), or
# with LABFLOW_TEMPORAL=server the Temporal server's (stack_temporal_server_command).
# The fault run (scripts/test-faults.sh) overrides those settings and restarts the server with it.
stack_temporal_command() {
  local ns sa
  if [[ "$LABFLOW_TEMPORAL" == server ]]; then
    stack_temporal_server_command
    return 0
  fi
  LABFLOW_TEMPORAL_CMD=("$TEMPORAL_BIN" server start-dev
    --ip "$LABFLOW_TEMPORAL_IP" --port "$LABFLOW_TEMPORAL_PORT" --ui-port "$LABFLOW_TEMPORAL_UI_PORT"
    --db-filename "$LABFLOW_TEMPORAL_DB"
    --ui-codec-endpoint "$LABFLOW_TEMPORAL_CODEC_ENDPOINT")
  for ns in "${LABFLOW_NAMESPACES[@]}"; do LABFLOW_TEMPORAL_CMD+=(--namespace "$ns"); done
  for sa in "${LABFLOW_SEARCH_ATTRIBUTES[@]}"; do LABFLOW_TEMPORAL_CMD+=(--search-attribute "$sa=Keyword"); done
  LABFLOW_TEMPORAL_CMD+=(--log-level warn)
}

# Starts the dev server unless one already answers on 127.0.0.1:7233 (or, with
# LABFLOW_TEMPORAL=server, the Temporal server: scripts/temporal-server.sh).
stack_temporal_up() {
  local pid=""
  if [[ "$LABFLOW_TEMPORAL" == server ]]; then
    stack_temporal_server_up
    return 0
  fi
  stack_find_temporal
  mkdir -p "$LABFLOW_CACHE_DIR"

  if ! temporal_healthy; then
    # One may be starting (an earlier run's pid file with a live process): give it a moment.
    if [[ -f "$LABFLOW_TEMPORAL_PIDFILE" ]] && pid_alive "$(cat "$LABFLOW_TEMPORAL_PIDFILE")"; then
      wait_until 60 temporal_healthy || true
    elif port_open "$LABFLOW_TEMPORAL_IP" "$LABFLOW_TEMPORAL_PORT"; then
      wait_until 30 temporal_healthy ||
        fail "port $LABFLOW_TEMPORAL_PORT is taken by $(port_owner "$LABFLOW_TEMPORAL_PORT"), which is not a healthy Temporal server" "stop that process"
    fi
  fi

  if temporal_healthy; then
    say "Temporal already running on $LABFLOW_TEMPORAL_ADDR (left as is)"
  else
    if port_open "$LABFLOW_TEMPORAL_IP" "$LABFLOW_TEMPORAL_UI_PORT"; then
      fail "port $LABFLOW_TEMPORAL_UI_PORT (Temporal UI) is already taken by $(port_owner "$LABFLOW_TEMPORAL_UI_PORT")" "stop that process"
    fi
    stack_temporal_command
    say "starting the Temporal dev server on $LABFLOW_TEMPORAL_ADDR (UI :$LABFLOW_TEMPORAL_UI_PORT, log $LABFLOW_TEMPORAL_LOG)"
    # setsid: its own session, so a Ctrl-C reaches the scripts (which stop things in order),
    # not the server directly.
    setsid env -u TEMPORAL_ADDRESS -u TEMPORAL_NAMESPACE "${LABFLOW_TEMPORAL_CMD[@]}" \
      </dev/null >"$LABFLOW_TEMPORAL_LOG" 2>&1 &
    pid=$!
    echo "$pid" >"$LABFLOW_TEMPORAL_PIDFILE"
    LABFLOW_STARTED_TEMPORAL=1
    LABFLOW_TEMPORAL_PID=$pid
    export LABFLOW_STARTED_TEMPORAL LABFLOW_TEMPORAL_PID
    local deadline=$((SECONDS + 90))
    until temporal_healthy; do
      if ! pid_alive "$pid"; then
        LABFLOW_STARTED_TEMPORAL=0
        fail "the Temporal dev server exited during start-up: $(grep -v '^\s*$' "$LABFLOW_TEMPORAL_LOG" | tail -n1)" "read $LABFLOW_TEMPORAL_LOG"
      fi
      if ((SECONDS >= deadline)); then
        fail "the Temporal dev server did not become healthy within 90 s" "read $LABFLOW_TEMPORAL_LOG"
      fi
      sleep 0.5
    done
    say "Temporal dev server is up (pid $pid)"
  fi
  stack_temporal_ensure
}

# Stops the dev server (or the Temporal server and its UI) only if this shell started it.
stack_temporal_down() {
  if declare -F stack_temporal_ui_down >/dev/null; then stack_temporal_ui_down; fi
  if [[ "${LABFLOW_STARTED_TEMPORAL:-0}" == 1 && -n "${LABFLOW_TEMPORAL_PID:-}" ]]; then
    if pid_alive "$LABFLOW_TEMPORAL_PID"; then
      say "stopping the Temporal $LABFLOW_TEMPORAL server (pid $LABFLOW_TEMPORAL_PID)"
      stop_pid "$LABFLOW_TEMPORAL_PID" "Temporal dev server" 20
    fi
    if [[ -f "$LABFLOW_TEMPORAL_PIDFILE" && "$(cat "$LABFLOW_TEMPORAL_PIDFILE" 2>/dev/null)" == "$LABFLOW_TEMPORAL_PID" ]]; then
      rm -f "$LABFLOW_TEMPORAL_PIDFILE"
    fi
    LABFLOW_STARTED_TEMPORAL=0
  fi
}

# --- PostgreSQL and Redis ----------------------------------------------------------------------

psql_admin() {
  PGOPTIONS="-c client_min_messages=warning" psql -h "$LABFLOW_PG_HOST" -p "$LABFLOW_PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtAX "$@"
}

redis_ping() {
  if have redis-cli; then
    redis-cli -h "$LABFLOW_REDIS_HOST" -p "$LABFLOW_REDIS_PORT" ping 2>/dev/null
  else
    redis_raw 'PING'
  fi
}

# redis_flushdb N: empties one Redis database.
redis_flushdb() {
  if have redis-cli; then
    redis-cli -h "$LABFLOW_REDIS_HOST" -p "$LABFLOW_REDIS_PORT" -n "$1" flushdb >/dev/null
  else
    redis_raw "SELECT $1" 'FLUSHDB' >/dev/null
  fi
}

# Minimal inline-command client over bash's /dev/tcp, for machines without redis-cli.
# Prints the last reply line.
redis_raw() {
  local reply="" cmd
  { exec 3<>"/dev/tcp/$LABFLOW_REDIS_HOST/$LABFLOW_REDIS_PORT"; } 2>/dev/null || return 1
  for cmd in "$@"; do
    printf '%s\r\n' "$cmd" >&3
    IFS= read -r -t 3 reply <&3 || { exec 3<&-; return 1; }
  done
  exec 3<&-
  reply=${reply%$'\r'}
  printf '%s\n' "${reply#+}"
}

stack_services() {
  have psql || fail "psql (the PostgreSQL client) is missing" "apt-get install -y postgresql-client"
  if have pg_isready; then
    pg_isready -q -h "$LABFLOW_PG_HOST" -p "$LABFLOW_PG_PORT" ||
      fail "PostgreSQL is not answering on $LABFLOW_PG_HOST:$LABFLOW_PG_PORT" "$PG_START_CMD"
  else
    port_open "$LABFLOW_PG_HOST" "$LABFLOW_PG_PORT" ||
      fail "PostgreSQL is not answering on $LABFLOW_PG_HOST:$LABFLOW_PG_PORT" "$PG_START_CMD"
  fi
  [[ "$(redis_ping)" == PONG ]] ||
    fail "Redis is not answering on $LABFLOW_REDIS_HOST:$LABFLOW_REDIS_PORT" "$REDIS_START_CMD"
}

# --- local settings ----------------------------------------------------------------------------

stack_env() {
  local mode=$1 file="$LABFLOW_STATE_DIR/env"
  mkdir -p "$LABFLOW_STATE_DIR"
  chmod 700 "$LABFLOW_STATE_DIR"
  if [[ "$mode" == dev ]]; then
    if [[ ! -f "$file" ]]; then
      (
        umask 077
        cat >"$file" <<EOF
# labflow local development settings, created by scripts/stack.sh on first run.
# Edit freely; the scripts never overwrite this file. Variables already set in your shell win.
# PHI_ENCRYPTION_KEY encrypts PHI in the labflow database: losing it makes that data unreadable.
NODE_ENV=development
DATABASE_URL=postgres://postgres@127.0.0.1:5432/labflow
REDIS_URL=redis://127.0.0.1:6379/0
TEMPORAL_ADDRESS=$LABFLOW_TEMPORAL_ADDR
TEMPORAL_NAMESPACE=labflow
TEMPORAL_UI_URL=http://127.0.0.1:$LABFLOW_TEMPORAL_UI_PORT
API_PORT=8000
MANAGEMENT_PORT=8001
PHI_ENCRYPTION_KEY=$(random_key)
EOF
      )
      say "created $file (with a new random PHI_ENCRYPTION_KEY)"
    fi
    if [[ "$LABFLOW_TEMPORAL" == server ]]; then
      # The env file names the dev server; this run uses the Temporal server (shell settings win).
      export TEMPORAL_ADDRESS=$LABFLOW_TEMPORAL_ADDR TEMPORAL_UI_URL=http://127.0.0.1:$LABFLOW_TEMPORAL_UI_PORT
    fi
    load_env_file "$file"
  else
    # Tests: fixed settings and a fresh key every run (the test database is recreated too).
    # LABFLOW_TEST_DATABASE / LABFLOW_TEST_REDIS_DB let two checkouts run tests side by side
    # (each its own database and Redis db; every test stack has its own Temporal task queue).
    export NODE_ENV=test
    export DATABASE_URL=postgres://postgres@127.0.0.1:5432/${LABFLOW_TEST_DATABASE:-labflow_test}
    export REDIS_URL=redis://127.0.0.1:6379/${LABFLOW_TEST_REDIS_DB:-1}
    export TEMPORAL_ADDRESS=$LABFLOW_TEMPORAL_ADDR
    export TEMPORAL_NAMESPACE=labflow-test
    export TEMPORAL_UI_URL=http://127.0.0.1:$LABFLOW_TEMPORAL_UI_PORT
    export USER_DELETION_GRACE=3s
    export LOG_REQUESTS=false
    # Each test stack's apps open at most 10 Postgres connections each (20 outside tests): one e2e
    # batch alone peaked at 9 with 20 allowed, and pool-pressure.test.ts shows 3 suffice for a
    # burst of orders. Three Jest workers then fit beside CI's fault runs under max_connections
    # 100 (docs/development.md, CI time). The fault runs set their own (scripts/test-faults.sh).
    export DATABASE_POOL_MAX=10
    # A worker process a test starts takes any free health/metrics port (runs side by side).
    export WORKER_HEALTH_PORT=0
    export LOG_LEVEL=warn
    PHI_ENCRYPTION_KEY=$(random_key)
    export PHI_ENCRYPTION_KEY
    # The last test run's settings, to rerun a single test by hand:
    #   set -a; . .labflow/test.env; set +a; npx jest test/unit/...
    (
      umask 077
      {
        echo "# written by scripts/stack.sh test; replaced on every test run"
        for var in NODE_ENV DATABASE_URL REDIS_URL TEMPORAL_ADDRESS TEMPORAL_NAMESPACE TEMPORAL_UI_URL \
          USER_DELETION_GRACE LOG_REQUESTS DATABASE_POOL_MAX LOG_LEVEL WORKER_HEALTH_PORT PHI_ENCRYPTION_KEY; do
          echo "$var=${!var}"
        done
      } >"$LABFLOW_STATE_DIR/test.env"
    )
  fi
}

# --- database ----------------------------------------------------------------------------------

stack_database() {
  local mode=$1 db
  db=${DATABASE_URL##*/}
  db=${db%%\?*}
  [[ "$db" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || fail "cannot read a database name from DATABASE_URL=$DATABASE_URL" "set DATABASE_URL to postgres://postgres@127.0.0.1:5432/labflow"
  case "$DATABASE_URL" in
    *@127.0.0.1:5432/* | *@localhost:5432/*) ;;
    *)
      say "DATABASE_URL points elsewhere; not creating database $db"
      return 0
      ;;
  esac
  if [[ "$mode" == test ]]; then
    psql_admin -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null ||
      fail "could not drop the test database $db" "psql -h 127.0.0.1 -U postgres -c 'DROP DATABASE \"$db\" WITH (FORCE)'"
    psql_admin -c "CREATE DATABASE \"$db\"" >/dev/null ||
      fail "could not create the test database $db" "psql -h 127.0.0.1 -U postgres -c 'CREATE DATABASE \"$db\"'"
    # A clean BullMQ state too (tests use Redis database 1 unless LABFLOW_TEST_REDIS_DB says; dev uses 0).
    local redis_db=${REDIS_URL##*/}
    redis_flushdb "$redis_db" || fail "could not empty Redis database $redis_db (the tests' BullMQ queues)" "redis-cli -n $redis_db flushdb"
    say "test database $db recreated; Redis db $redis_db flushed"
  elif [[ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]]; then
    psql_admin -c "CREATE DATABASE \"$db\"" >/dev/null ||
      fail "could not create database $db" "psql -h 127.0.0.1 -U postgres -c 'CREATE DATABASE \"$db\"'"
    say "created database $db"
  fi
}

# --- build and migrations ----------------------------------------------------------------------

# LABFLOW_BUILD_NO_CHECK=1: emit without type checking (tsc --noCheck: the same files in about half
# the CPU time), for a caller that typechecks the tree itself (scripts/test.sh, beside the bring-up).
stack_build() {
  local flags=()
  [[ "${LABFLOW_BUILD_NO_CHECK:-0}" == 1 ]] && flags+=(--noCheck)
  say "building (tsc -p tsconfig.build.json${flags[*]:+ ${flags[*]}})"
  (cd "$LABFLOW_ROOT" && nbin tsc -p tsconfig.build.json "${flags[@]}") ||
    fail "the TypeScript build failed (errors above)" "fix those errors (npx tsc -p tsconfig.build.json shows them), then rerun"
}

stack_migrate() {
  [[ -f "$LABFLOW_ROOT/dist/scripts/migrate.js" ]] || fail "dist/scripts/migrate.js is missing" "npm run build"
  (cd "$LABFLOW_ROOT" && node dist/scripts/migrate.js) ||
    fail "database migrations failed (errors above)" "fix the cause, then rerun (or: node --env-file=.labflow/env dist/scripts/migrate.js)"
}

# --- all of it ---------------------------------------------------------------------------------

# --- Chromium (the browser tests) -------------------------------------------------------------

# The browser tests (test/browser) drive Debian's Chromium through playwright-core. Installed with
# apt when missing, as the Temporal CLI is built when missing; CHROMIUM_PATH points at another.
stack_chromium() {
  local chromium=${CHROMIUM_PATH:-/usr/bin/chromium} sudo=()
  [[ -x "$chromium" ]] && return 0
  [[ -n "${CHROMIUM_PATH:-}" ]] && fail "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file" "unset CHROMIUM_PATH or point it at a Chromium binary"
  have apt-get || fail "Chromium is missing and apt-get is not available to install it" "install Chromium and set CHROMIUM_PATH"
  ((EUID == 0)) || sudo=(sudo)
  mkdir -p "$LABFLOW_STATE_DIR"
  say "installing Chromium for the browser tests (apt-get install chromium, once)"
  # Two bring-ups at once (two checkouts) would race for dpkg's lock: the second waits for it.
  local wait_lock=(-o DPkg::Lock::Timeout=600)
  { "${sudo[@]}" apt-get "${wait_lock[@]}" update &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get "${wait_lock[@]}" install -y --no-install-recommends chromium; } \
    </dev/null >"$LABFLOW_STATE_DIR/chromium-install.log" 2>&1 ||
    fail "installing Chromium failed (see $LABFLOW_STATE_DIR/chromium-install.log)" "apt-get install -y chromium"
}

stack_up() {
  local mode=${1:-}
  [[ "$mode" == dev || "$mode" == test ]] || fail "stack.sh needs a mode, dev or test" "bash scripts/stack.sh dev"
  have node || fail "node is missing" "install Node.js 20"
  stack_npm_install
  stack_services
  stack_temporal_up
  stack_env "$mode"
  stack_database "$mode"
  stack_build
  stack_migrate
  if [[ "$mode" == test ]]; then stack_chromium; fi
  say "stack ready ($mode): database ${DATABASE_URL##*/}, Temporal namespace $TEMPORAL_NAMESPACE"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  stack_up "${1:-}"
  if [[ "$LABFLOW_STARTED_TEMPORAL" == 1 ]]; then
    say "the Temporal $LABFLOW_TEMPORAL server keeps running (pid $LABFLOW_TEMPORAL_PID${LABFLOW_TEMPORAL_UI_PID:+, UI pid $LABFLOW_TEMPORAL_UI_PID}); stop it with: kill $LABFLOW_TEMPORAL_PID ${LABFLOW_TEMPORAL_UI_PID:-}"
  fi
elif [[ -n "${1:-}" ]]; then
  stack_up "$1"
fi
