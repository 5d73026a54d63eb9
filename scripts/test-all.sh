#!/usr/bin/env bash
# Every test: typecheck, lint, unit tests, database tests (PGlite and the
# PostgreSQL server at 127.0.0.1:5432), then a production build and the
# end-to-end suite in Chromium. Runs them all even when one fails, and ends
# with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1 VITE_CONFIG_NATIVE_IGNORE_WARNING=true
mkdir -p test-results
rm -f test-results/*.json

status=0
step() { # name, command…
  local name=$1; shift
  echo; echo "━━ $name"
  local t0=$SECONDS
  if "$@"; then echo "━━ $name: ok ($((SECONDS - t0)) s)"; echo "pass $name" >> test-results/checks.txt
  else echo "━━ $name: FAILED ($((SECONDS - t0)) s)"; echo "fail $name" >> test-results/checks.txt; status=1; fi
}
: > test-results/checks.txt

bash scripts/prisma-generate.sh
step "typecheck" npx tsc --noEmit
step "lint" npx eslint . --max-warnings 0
step "format" npx prettier --check . --log-level warn
step "unit tests" npx vitest run --project unit --reporter=default --reporter=json --outputFile.json=test-results/unit.json
step "database tests (PGlite and PostgreSQL)" npx vitest run --project db --reporter=default --reporter=json --outputFile.json=test-results/db.json
step "production build" npx next build
if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  step "end-to-end tests (Chromium)" npx playwright test
else
  echo "Chromium is missing at ${CHROMIUM_PATH:-/usr/bin/chromium}: apt-get install -y chromium"; echo "fail e2e (no chromium)" >> test-results/checks.txt; status=1
fi

node scripts/test-summary.mjs || status=1
exit $status
