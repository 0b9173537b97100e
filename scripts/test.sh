#!/usr/bin/env bash
# npm test: brings the test stack up (scripts/stack.sh test: fresh labflow_test database, Redis
# db 1 flushed, Temporal namespace labflow-test, a new PHI key), then typecheck, lint (eslint,
# prettier's format check, the import rules, knip's package check) and Jest. Extra arguments go to Jest: npm test -- test/unit
# --verbose; one tier: npm run test:unit (= npm test -- --selectProjects unit; also test:workflows, test:replay, test:e2e)
# The static checks need only node_modules: they run at once, beside the rest of the
# bring-up (Temporal, database, build, migrations), and Jest starts only when all passed.
# On a fresh clone and a 2-core machine that is 70-92 s from npm ci's end to Jest's start, where
# one after another they take ~125 s (build 29 s, typecheck 29 s, eslint 61 s, import rules 5 s).
# A run of the whole e2e tier (no Jest arguments that narrow it) records every answer its stacks
# give to .labflow/openapi-answers.jsonl and, when Jest passed, checks them against both OpenAPI
# documents (npm run check:openapi-answers): a problem fails npm test.
# LABFLOW_BESIDE_JEST (.ci/run sets it): a command (bash -c) started with Jest and run beside it,
# for work that mostly waits on timers (the fault runs); its output goes to .labflow/ci/beside-jest.log
# and is printed after Jest. LABFLOW_JEST_NICE (.ci/run: 10) runs Jest that much nicer, so the
# command beside it gets the CPU when it asks and keeps its pace while Jest takes the rest.
# Exit code: Jest's (or the command's beside it, when Jest passed), or that of the first step that
# failed. The Temporal dev server is stopped at the end only if this script started it.
set -euo pipefail
# The environment this script was started with: what runs beside Jest gets it, not the test
# stack's settings exported below (LOG_LEVEL=warn would hide the log lines a fault run waits for,
# LABFLOW_TEMPORAL_PID names the Temporal dev server Jest uses).
mapfile -d '' -t STARTING_ENV < <(env -0)

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$LABFLOW_ROOT"

CHECKS_DIR=""
CHECK_TITLES=()
CHECK_FIXES=()
CHECK_PIDS=()
BESIDE_PID=""

finish() {
  local rc=$? pid
  trap '' INT TERM HUP
  # What runs beside Jest stops what it started on SIGTERM (.ci/fault-runs).
  if pid_alive "$BESIDE_PID"; then stop_pid "$BESIDE_PID" "$LABFLOW_BESIDE_JEST" 120; fi
  for pid in "${CHECK_PIDS[@]}"; do
    # Each check is a subshell running tsc, eslint or node: the process itself first.
    if pid_alive "$pid"; then pkill -TERM -P "$pid" 2>/dev/null || true; kill -TERM "$pid" 2>/dev/null || true; fi
  done
  if [[ -n "$CHECKS_DIR" ]]; then rm -rf "$CHECKS_DIR"; fi
  if declare -F stack_temporal_down >/dev/null; then stack_temporal_down; fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Functions and settings only (the empty mode argument: this script's own arguments are Jest's,
# not a mode for stack.sh); the bring-up is stack_up below.
# shellcheck source=scripts/stack.sh
source "$LABFLOW_ROOT/scripts/stack.sh" ""

# start_check TITLE FIX COMMAND...: runs COMMAND in the background, its output kept for later;
# TITLE heads that output, FIX is said when it fails.
start_check() {
  CHECK_TITLES+=("$1")
  CHECK_FIXES+=("$2")
  shift 2
  "$@" >"$CHECKS_DIR/${#CHECK_PIDS[@]}.log" 2>&1 </dev/null &
  CHECK_PIDS+=("$!")
}

# Waits for the checks in the order started; prints each one's output, and on the first failure
# says how to fix it and exits with its code.
finish_checks() {
  local i rc
  for i in "${!CHECK_PIDS[@]}"; do
    rc=0
    wait "${CHECK_PIDS[$i]}" || rc=$?
    say "${CHECK_TITLES[$i]}"
    cat "$CHECKS_DIR/$i.log" >&2
    if ((rc != 0)); then
      say "${CHECK_FIXES[$i]}"
      exit "$rc"
    fi
  done
}

# whole_e2e_tier JEST_ARGS...: whether Jest runs every e2e suite with these arguments: none that
# narrow the run (a path, -t, --selectProjects without e2e...), only a worker count and the like.
whole_e2e_tier() {
  local arg projects="" in_projects=0 skip=0
  for arg in "$@"; do
    if ((skip)); then skip=0; continue; fi
    if ((in_projects)) && [[ "$arg" != -* ]]; then projects+=" $arg"; continue; fi
    in_projects=0
    case "$arg" in
      --maxWorkers=* | --verbose | --silent | --ci | --runInBand | -i | --logHeapUsage | --detectOpenHandles | --no-cache | --colors) ;;
      --maxWorkers | -w) skip=1 ;;
      --selectProjects) in_projects=1 projects+=" -" ;;
      --selectProjects=*) projects+=" - ${arg#--selectProjects=}" ;;
      *) return 1 ;;
    esac
  done
  [[ -z "$projects" || " $projects " == *" e2e "* ]]
}

have node || fail "node is missing" "install Node.js 20"
stack_npm_install
CHECKS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/labflow-checks.XXXXXX")
say "typecheck, lint, format, import rules, packages and the configuration reference started (their output follows the bring-up)"
# The same steps as npm run typecheck and npm run lint.
start_check "typecheck (tsc -p tsconfig.json --noEmit)" \
  "the typecheck failed (errors above); fix them, then: npm test" \
  nbin tsc -p tsconfig.json --noEmit
start_check "lint (eslint .)" \
  "lint failed (errors above); fix them (npx eslint . --fix helps), then: npm test" \
  nbin eslint .
start_check "format (prettier --check ., .prettierrc.json)" \
  "files are not formatted (listed above): npm run format, then: npm test" \
  nbin prettier --check .
start_check "import rules (node scripts/check-dependencies.mjs: dependency-cruiser, .dependency-cruiser.cjs)" \
  "an import rule is broken (above; src/README.md explains the rules), then: npm test" \
  node scripts/check-dependencies.mjs
start_check "packages (knip, knip.jsonc: every import listed in package.json, every listed package used)" \
  "package.json and the imports disagree (above): list the package, or remove the unused one (npm uninstall), then: npm test" \
  nbin knip
start_check "configuration reference (npm run docs:config -- --check: docs/configuration.md against src/config/environment.ts)" \
  "docs/configuration.md is stale: npm run docs:config, commit it, then: npm test" \
  nbin ts-node --swc scripts/docs-config.ts --check
start_check "helm chart (scripts/helm-check.sh: helm lint, helm template, kubeconform -strict)" \
  "the Helm chart is broken (above; docs/kubernetes.md), then: npm test" \
  bash scripts/helm-check.sh
# The typecheck above covers what the build compiles: the build only emits.
LABFLOW_BUILD_NO_CHECK=1
stack_up test
finish_checks

beside_log="$LABFLOW_STATE_DIR/ci/beside-jest.log"
if [[ -n "${LABFLOW_BESIDE_JEST:-}" ]]; then
  mkdir -p "$(dirname "$beside_log")"
  env -i "${STARTING_ENV[@]}" bash -c "$LABFLOW_BESIDE_JEST" </dev/null >"$beside_log" 2>&1 &
  BESIDE_PID=$!
  say "beside Jest: $LABFLOW_BESIDE_JEST (pid $BESIDE_PID; output after Jest, $beside_log)"
fi
jest_nice=()
if [[ -n "${LABFLOW_JEST_NICE:-}" ]]; then jest_nice=(nice -n "$LABFLOW_JEST_NICE"); fi
# The e2e tier's stacks record every answer they give (test/helpers/response-recorder.ts; the
# other tiers' stacks do not); after Jest, test/check-openapi-answers.ts checks them against both
# OpenAPI documents. Only for a run of the whole tier: a narrower one leaves operations unanswered.
answers="$LABFLOW_STATE_DIR/openapi-answers.jsonl"
rm -f "$answers"
check_answers=0
if whole_e2e_tier "$@"; then check_answers=1; fi
say "${jest_nice[*]}${jest_nice[*]:+ }jest --ci $*"
set +e
OPENAPI_RESPONSES="$answers" "${jest_nice[@]}" "$LABFLOW_ROOT/node_modules/.bin/jest" --ci "$@"
rc=$?
set -e
if ((rc == 0)); then say "tests passed"; else say "tests failed (jest exit code $rc)"; fi
if ((check_answers == 0)); then
  say "answers against the OpenAPI documents: not checked (Jest did not run the whole e2e tier)"
elif ((rc != 0)); then
  say "answers against the OpenAPI documents: not checked (the tests failed)"
else
  say "answers against the OpenAPI documents (npm run check:openapi-answers -- $answers)"
  if ! nbin ts-node --swc test/check-openapi-answers.ts "$answers"; then
    say "answers differ from the OpenAPI documents (above): document what the route answers, or answer what it documents (docs/development.md, \"Documenting a route\"), then: npm test"
    rc=1
  fi
fi
if [[ -n "$BESIDE_PID" ]]; then
  say "waiting for what runs beside Jest: $LABFLOW_BESIDE_JEST"
  beside_rc=0
  wait "$BESIDE_PID" || beside_rc=$?
  BESIDE_PID=""
  say "beside Jest: $LABFLOW_BESIDE_JEST (exit $beside_rc)"
  cat "$beside_log" >&2
  if ((beside_rc != 0)); then
    say "$LABFLOW_BESIDE_JEST failed (exit code $beside_rc, output above)"
    ((rc != 0)) || rc=$beside_rc
  fi
fi
exit "$rc"
