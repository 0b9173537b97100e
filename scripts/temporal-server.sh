# shellcheck shell=bash
# The Temporal server itself, the way a team that outgrew one machine runs it, instead of the
# CLI's dev server: the frontend, history, matching and worker services (one process here; the
# same binary runs them apart), persistence and visibility in PostgreSQL, and the Temporal UI.
# Chosen with LABFLOW_TEMPORAL=server: `npm run up -- --temporal=server`,
# `LABFLOW_TEMPORAL=server npm test`. Sourced by stack.sh, which calls stack_temporal_server_up.
#
# Everything is built once with `go install` from the Go module proxy into $LABFLOW_CACHE_DIR/bin
# (server ~7 minutes, its SQL tool and the UI server ~1 minute each) and reused by fresh clones.
# State: databases temporal_labflow and temporal_labflow_visibility on the local PostgreSQL,
# config, logs and pid files in $LABFLOW_CACHE_DIR/temporal-server.

LABFLOW_TEMPORAL_SERVER_VERSION=v1.29.1
# The newest UI server that builds with this machine's Go (v2.58 asks for a newer toolchain).
LABFLOW_TEMPORAL_UI_SERVER_VERSIONS=(v2.42.1 v2.40.1 v2.36.0)
LABFLOW_TEMPORAL_SERVER_DIR="$LABFLOW_CACHE_DIR/temporal-server"
LABFLOW_TEMPORAL_SERVER_DB=temporal_labflow
LABFLOW_TEMPORAL_SERVER_VISIBILITY_DB=temporal_labflow_visibility
# Connections each of the four services may open to its stores (persistence, visibility).
LABFLOW_TEMPORAL_SERVER_MAX_CONNS=${LABFLOW_TEMPORAL_SERVER_MAX_CONNS:-10}
LABFLOW_TEMPORAL_SERVER_VISIBILITY_MAX_CONNS=${LABFLOW_TEMPORAL_SERVER_VISIBILITY_MAX_CONNS:-5}
# The other services' ports sit next to the frontend's (LABFLOW_TEMPORAL_PORT).
LABFLOW_TEMPORAL_SERVER_PIDFILE="$LABFLOW_TEMPORAL_SERVER_DIR/server.pid"
LABFLOW_TEMPORAL_UI_PIDFILE="$LABFLOW_TEMPORAL_SERVER_DIR/ui.pid"

temporal_go() {
  local gobin
  gobin=$(command -v go || true)
  [[ -z "$gobin" && -x /usr/local/go/bin/go ]] && gobin=/usr/local/go/bin/go
  [[ -n "$gobin" ]] || fail "Go is needed to build the Temporal server" "install Go (https://go.dev/dl)"
  GOTOOLCHAIN=local "$gobin" "$@"
}

# go_install_as NAME PACKAGE@VERSION: builds PACKAGE into the cache's bin folder under NAME, once.
go_install_as() {
  local name=$1 package=$2 target="$LABFLOW_CACHE_DIR/bin/$1" tmp
  [[ -x "$target" ]] && return 0
  tmp=$(mktemp -d)
  mkdir -p "$LABFLOW_CACHE_DIR/bin"
  say "building $name from $package (go install, once)"
  if GOBIN="$tmp" temporal_go install "$package" </dev/null >"$LABFLOW_CACHE_DIR/$name-build.log" 2>&1; then
    mv "$tmp"/* "$target"
    rm -rf "$tmp"
    return 0
  fi
  rm -rf "$tmp"
  return 1
}

stack_temporal_server_binaries() {
  go_install_as temporal-server "go.temporal.io/server/cmd/server@$LABFLOW_TEMPORAL_SERVER_VERSION" ||
    fail "building the Temporal server failed (see $LABFLOW_CACHE_DIR/temporal-server-build.log)" \
      "GOBIN=/tmp go install go.temporal.io/server/cmd/server@$LABFLOW_TEMPORAL_SERVER_VERSION"
  go_install_as temporal-sql-tool "go.temporal.io/server/cmd/tools/sql@$LABFLOW_TEMPORAL_SERVER_VERSION" ||
    fail "building temporal-sql-tool failed (see $LABFLOW_CACHE_DIR/temporal-sql-tool-build.log)" \
      "GOBIN=/tmp go install go.temporal.io/server/cmd/tools/sql@$LABFLOW_TEMPORAL_SERVER_VERSION"
  local version
  for version in "${LABFLOW_TEMPORAL_UI_SERVER_VERSIONS[@]}"; do
    go_install_as temporal-ui-server "github.com/temporalio/ui-server/v2/cmd/server@$version" && return 0
  done
  fail "building the Temporal UI server failed (see $LABFLOW_CACHE_DIR/temporal-ui-server-build.log)" \
    "GOBIN=/tmp go install github.com/temporalio/ui-server/v2/cmd/server@${LABFLOW_TEMPORAL_UI_SERVER_VERSIONS[0]}"
}

# The server's SQL schema files ship in its Go module; `go mod download` finds (or fetches) it.
temporal_schema_dir() {
  local dir
  dir=$(temporal_go mod download -json "go.temporal.io/server@$LABFLOW_TEMPORAL_SERVER_VERSION" | node -e \
    'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.parse(s).Dir))') ||
    fail "could not locate the Temporal server module's schema files" "go mod download go.temporal.io/server@$LABFLOW_TEMPORAL_SERVER_VERSION"
  printf '%s/schema/postgresql/v12' "$dir"
}

sql_tool() {
  "$LABFLOW_CACHE_DIR/bin/temporal-sql-tool" --plugin postgres12 --ep "$LABFLOW_PG_HOST" -p "$LABFLOW_PG_PORT" -u postgres "$@"
}

# Creates both databases and brings their schemas to this server version (idempotent: an
# existing schema is only updated).
stack_temporal_server_schema() {
  local schema db kind
  schema=$(temporal_schema_dir)
  for kind in temporal visibility; do
    db=$LABFLOW_TEMPORAL_SERVER_DB
    [[ $kind == visibility ]] && db=$LABFLOW_TEMPORAL_SERVER_VISIBILITY_DB
    if [[ "$(psql_admin -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]]; then
      sql_tool --db "$db" create-database >>"$LABFLOW_TEMPORAL_SERVER_DIR/schema.log" 2>&1 ||
        fail "could not create database $db (see $LABFLOW_TEMPORAL_SERVER_DIR/schema.log)" "psql -h 127.0.0.1 -U postgres -c 'CREATE DATABASE $db'"
      sql_tool --db "$db" setup-schema -v 0.0 >>"$LABFLOW_TEMPORAL_SERVER_DIR/schema.log" 2>&1 ||
        fail "could not set up the $kind schema in $db (see $LABFLOW_TEMPORAL_SERVER_DIR/schema.log)"
      say "created database $db for Temporal $kind"
    fi
    sql_tool --db "$db" update-schema -d "$schema/$kind/versioned" >>"$LABFLOW_TEMPORAL_SERVER_DIR/schema.log" 2>&1 ||
      fail "could not update the $kind schema in $db (see $LABFLOW_TEMPORAL_SERVER_DIR/schema.log)"
  done
}

# The server's configuration: the services on ports next to the frontend's, both stores in
# PostgreSQL, and the dynamic config labflow relies on.
stack_temporal_server_config() {
  local base=$LABFLOW_TEMPORAL_PORT dir="$LABFLOW_TEMPORAL_SERVER_DIR/config"
  mkdir -p "$dir/dynamicconfig"
  cat >"$dir/development.yaml" <<EOF
# Written by scripts/temporal-server.sh on every start; edit that script, not this file.
log:
  stdout: true
  level: warn
# Each of the four services keeps pools of its own: at most 4 x (10 + 5) = 60 connections by default, so
# labflow's processes (DATABASE_POOL_MAX each) fit beside them under Postgres's default 100.
persistence:
  defaultStore: default
  visibilityStore: visibility
  numHistoryShards: 4
  datastores:
    default:
      sql:
        pluginName: postgres12
        databaseName: $LABFLOW_TEMPORAL_SERVER_DB
        connectAddr: "$LABFLOW_PG_HOST:$LABFLOW_PG_PORT"
        connectProtocol: tcp
        user: postgres
        maxConns: $LABFLOW_TEMPORAL_SERVER_MAX_CONNS
        maxIdleConns: 5
        maxConnLifetime: 1h
    visibility:
      sql:
        pluginName: postgres12
        databaseName: $LABFLOW_TEMPORAL_SERVER_VISIBILITY_DB
        connectAddr: "$LABFLOW_PG_HOST:$LABFLOW_PG_PORT"
        connectProtocol: tcp
        user: postgres
        maxConns: $LABFLOW_TEMPORAL_SERVER_VISIBILITY_MAX_CONNS
        maxIdleConns: 2
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
  frontend:
    rpc: { grpcPort: $base, membershipPort: $((base - 700)), bindOnLocalHost: true, httpPort: $((base + 10)) }
  history:
    rpc: { grpcPort: $((base + 1)), membershipPort: $((base - 699)), bindOnLocalHost: true }
  matching:
    rpc: { grpcPort: $((base + 2)), membershipPort: $((base - 698)), bindOnLocalHost: true }
  worker:
    rpc: { grpcPort: $((base + 6)), membershipPort: $((base - 694)), bindOnLocalHost: true }
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "127.0.0.1:$base"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "$dir/dynamicconfig/development.yaml"
  pollInterval: 10s
EOF
  cp "$LABFLOW_ROOT/deploy/temporal/dynamicconfig.yaml" "$dir/dynamicconfig/development.yaml"
  cat >"$dir/ui.yaml" <<EOF
temporalGrpcAddress: 127.0.0.1:$base
port: $LABFLOW_TEMPORAL_UI_PORT
publicPath: ""
enableUi: true
defaultNamespace: labflow
codec:
  endpoint: $LABFLOW_TEMPORAL_CODEC_ENDPOINT
EOF
}

# Sets LABFLOW_TEMPORAL_CMD to the server's command line (its config is written by
# stack_temporal_server_config). The fault run restarts the server with it.
stack_temporal_server_command() {
  LABFLOW_TEMPORAL_CMD=("$LABFLOW_CACHE_DIR/bin/temporal-server" --root "$LABFLOW_TEMPORAL_SERVER_DIR" --config config --env development
    --allow-no-auth start)
}

# Starts the server and the UI unless a Temporal answers on the frontend port already.
stack_temporal_server_up() {
  stack_find_temporal # the CLI: health checks, namespaces and search attributes
  mkdir -p "$LABFLOW_TEMPORAL_SERVER_DIR"
  if temporal_healthy; then
    say "Temporal already running on $LABFLOW_TEMPORAL_ADDR (left as is)"
  else
    stack_temporal_server_binaries
    stack_temporal_server_schema
    stack_temporal_server_config
    say "starting the Temporal server on $LABFLOW_TEMPORAL_ADDR (PostgreSQL: $LABFLOW_TEMPORAL_SERVER_DB, log $LABFLOW_TEMPORAL_SERVER_DIR/server.log)"
    stack_temporal_server_command
    setsid "${LABFLOW_TEMPORAL_CMD[@]}" </dev/null >"$LABFLOW_TEMPORAL_SERVER_DIR/server.log" 2>&1 &
    LABFLOW_TEMPORAL_PID=$!
    echo "$LABFLOW_TEMPORAL_PID" >"$LABFLOW_TEMPORAL_SERVER_PIDFILE"
    LABFLOW_STARTED_TEMPORAL=1
    export LABFLOW_STARTED_TEMPORAL LABFLOW_TEMPORAL_PID
    local deadline=$((SECONDS + 120))
    until temporal_healthy; do
      pid_alive "$LABFLOW_TEMPORAL_PID" || {
        LABFLOW_STARTED_TEMPORAL=0
        fail "the Temporal server exited during start-up: $(grep -v '^\s*$' "$LABFLOW_TEMPORAL_SERVER_DIR/server.log" | tail -n1)" "read $LABFLOW_TEMPORAL_SERVER_DIR/server.log"
      }
      ((SECONDS >= deadline)) && fail "the Temporal server did not become healthy within 120 s" "read $LABFLOW_TEMPORAL_SERVER_DIR/server.log"
      sleep 0.5
    done
    say "Temporal server is up (pid $LABFLOW_TEMPORAL_PID)"
    if port_open "$LABFLOW_TEMPORAL_IP" "$LABFLOW_TEMPORAL_UI_PORT"; then
      say "port $LABFLOW_TEMPORAL_UI_PORT is taken by $(port_owner "$LABFLOW_TEMPORAL_UI_PORT"); not starting the Temporal UI"
    else
      setsid "$LABFLOW_CACHE_DIR/bin/temporal-ui-server" --root "$LABFLOW_TEMPORAL_SERVER_DIR" --config config --env ui start \
        </dev/null >"$LABFLOW_TEMPORAL_SERVER_DIR/ui.log" 2>&1 &
      LABFLOW_TEMPORAL_UI_PID=$!
      echo "$LABFLOW_TEMPORAL_UI_PID" >"$LABFLOW_TEMPORAL_UI_PIDFILE"
      export LABFLOW_TEMPORAL_UI_PID
      wait_for_port "$LABFLOW_TEMPORAL_IP" "$LABFLOW_TEMPORAL_UI_PORT" 30 ||
        say "the Temporal UI did not open port $LABFLOW_TEMPORAL_UI_PORT (see $LABFLOW_TEMPORAL_SERVER_DIR/ui.log)"
    fi
  fi
  stack_temporal_ensure
}

# Stops the UI this shell started (the server is stopped by stack_temporal_down).
stack_temporal_ui_down() {
  if [[ -n "${LABFLOW_TEMPORAL_UI_PID:-}" ]] && pid_alive "$LABFLOW_TEMPORAL_UI_PID"; then
    stop_pid "$LABFLOW_TEMPORAL_UI_PID" "Temporal UI" 10
  fi
  LABFLOW_TEMPORAL_UI_PID=
}
