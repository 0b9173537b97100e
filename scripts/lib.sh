# shellcheck shell=bash
# Shared helpers for labflow's scripts. Source it; it defines functions and a few variables only.

if [[ -n "${LABFLOW_LIB_LOADED:-}" ]]; then return 0; fi
LABFLOW_LIB_LOADED=1

LABFLOW_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LABFLOW_CACHE_DIR="${LABFLOW_CACHE_DIR:-$HOME/.cache/labflow}"
LABFLOW_STATE_DIR="$LABFLOW_ROOT/.labflow"
LABFLOW_TEMPORAL_CLI_VERSION="v1.5.1"
export LABFLOW_ROOT LABFLOW_CACHE_DIR LABFLOW_STATE_DIR

# One-line message.
say() { printf '[labflow] %s\n' "$*" >&2; }

# fail "what is missing" "command that fixes it": one clear line, exit 1.
fail() {
  if [[ -n "${2:-}" ]]; then
    printf '[labflow] ERROR: %s; fix: %s\n' "$1" "$2" >&2
  else
    printf '[labflow] ERROR: %s\n' "$1" >&2
  fi
  exit 1
}

have() { command -v "$1" >/dev/null 2>&1; }

# port_open HOST PORT: true when something accepts TCP connections there.
port_open() {
  (exec 3<>"/dev/tcp/$1/$2") >/dev/null 2>&1
}

# wait_for_port HOST PORT SECONDS: true once the port accepts connections.
wait_for_port() {
  local host=$1 port=$2 deadline=$((SECONDS + ${3:-30}))
  until port_open "$host" "$port"; do
    ((SECONDS >= deadline)) && return 1
    sleep 0.25
  done
}

# wait_until SECONDS COMMAND...: true once COMMAND succeeds.
wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    ((SECONDS >= deadline)) && return 1
    sleep 0.5
  done
}

# http_ok URL: true on a 2xx answer.
http_ok() {
  if have curl; then
    curl -fs -o /dev/null --max-time 2 "$1"
  else
    node -e "fetch(process.argv[1],{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" "$1"
  fi
}

# port_owner PORT: a short description of who listens there (best effort).
port_owner() {
  local line
  line=$(ss -Hltnp "sport = :$1" 2>/dev/null | head -n1 | grep -o 'users:(([^)]*' | sed 's/users:((//')
  printf '%s' "${line:-unknown process}"
}

# require_free_port PORT WHAT: fail in one line when the port is taken.
require_free_port() {
  if port_open 127.0.0.1 "$1"; then
    fail "port $1 ($2) is already taken by $(port_owner "$1")" "stop that process (ss -ltnp 'sport = :$1' shows it) or stop the earlier 'npm run up'"
  fi
}

# pid_alive PID
pid_alive() { [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null; }

# stop_pid PID NAME SECONDS: SIGTERM, wait, then SIGKILL.
stop_pid() {
  local pid=$1 name=$2 deadline=$((SECONDS + ${3:-20}))
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  while pid_alive "$pid"; do
    if ((SECONDS >= deadline)); then
      say "$name (pid $pid) did not stop in time; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  wait "$pid" 2>/dev/null || true
}

# random_key: 32 random bytes, base64.
random_key() {
  if have openssl; then
    openssl rand -base64 32
  else
    node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('base64')+'\n')"
  fi
}

# load_env_file FILE: export KEY=VALUE lines that are not already set in the environment.
load_env_file() {
  local key value line
  while IFS= read -r line || [[ -n "$line" ]]; do
    [[ "$line" =~ ^[[:space:]]*(#|$) ]] && continue
    [[ "$line" =~ ^[[:space:]]*(export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
    key=${BASH_REMATCH[2]}
    value=${BASH_REMATCH[3]}
    value=${value%\"}; value=${value#\"}
    value=${value%\'}; value=${value#\'}
    if [[ -z "${!key+x}" ]]; then export "$key=$value"; fi
  done <"$1"
}
