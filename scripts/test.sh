#!/usr/bin/env bash
# npm test: brings the test stack up (scripts/stack.sh test: fresh labflow_test database, Redis
# db 1 flushed, Temporal namespace labflow-test, a new PHI key), then typecheck, lint (eslint and the
# import rules) and Jest. Extra arguments go to Jest: npm test -- test/unit --verbose; one tier:
# npm run test:unit (= npm test -- --selectProjects unit; also test:workflows, test:replay, test:e2e)
# Exit code: Jest's, or that of the first step that failed. The Temporal dev server is stopped at
# the end only if this script started it.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$LABFLOW_ROOT"

finish() {
  local rc=$?
  trap '' INT TERM HUP
  if declare -F stack_temporal_down >/dev/null; then stack_temporal_down; fi
  exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# shellcheck source=scripts/stack.sh
source "$LABFLOW_ROOT/scripts/stack.sh" test

say "typecheck (tsc -p tsconfig.json --noEmit)"
nbin tsc -p tsconfig.json --noEmit || {
  rc=$?
  say "the typecheck failed (errors above); fix them, then: npm test"
  exit "$rc"
}

# The same two steps as npm run lint.
say "lint (eslint .)"
nbin eslint . || {
  rc=$?
  say "lint failed (errors above); fix them (npx eslint . --fix helps), then: npm test"
  exit "$rc"
}
say "import rules (node scripts/check-dependencies.mjs: dependency-cruiser, .dependency-cruiser.cjs)"
node scripts/check-dependencies.mjs || {
  rc=$?
  say "an import rule is broken (above; src/README.md explains the rules), then: npm test"
  exit "$rc"
}

say "jest --ci $*"
set +e
nbin jest --ci "$@"
rc=$?
set -e
if ((rc == 0)); then say "tests passed"; else say "tests failed (jest exit code $rc)"; fi
exit "$rc"
