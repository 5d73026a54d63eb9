#!/usr/bin/env bash
# Every test: typecheck, lint, unit tests, database tests (PGlite and the
# PostgreSQL server at 127.0.0.1:5432), and, alongside them, a production build
# and the end-to-end suite in Chromium. Runs them all even when one fails, and
# ends with one line: "N passed, N failed".
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
# Two tracks, about one core each, on two cores. The end-to-end track (the production build, then the suite in
# Chromium, then the format check and the unit tests) starts first, in the background, and its output is shown at
# the end; the other track runs the type check, the lint and the database tests (one file at a time), in the
# foreground. The format check and the unit tests sit in the end-to-end track because the database tests were the
# longer track by about as much as they take (29.5 min in all, the end-to-end track done 4 min before the other).
e2e_log=test-results/e2e-track.log
(
  t0=$SECONDS
  if npx next build > test-results/build.log 2>&1; then
    echo "━━ production build: ok ($((SECONDS - t0)) s)"; echo "pass production build" >> test-results/checks.txt
    if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
      # One Playwright run (two shards at once, E2E_SHARD=1|2 with --shard, each with its own server, measured slower
      # here: the database tests' PGlite property tests then share two cores with two servers and two browsers).
      step "end-to-end tests (Chromium)" npx playwright test
    else
      echo "Chromium is missing at ${CHROMIUM_PATH:-/usr/bin/chromium}: apt-get install -y chromium"
      echo "fail e2e (no chromium)" >> test-results/checks.txt; status=1
    fi
  else
    cat test-results/build.log
    echo "━━ production build: FAILED ($((SECONDS - t0)) s)"; echo "fail production build" >> test-results/checks.txt
    status=1
  fi
  step "format" npx prettier --check . --log-level warn
  step "unit tests" npx vitest run --project unit --reporter=default --reporter=json --outputFile.json=test-results/unit.json
  exit $status
) > "$e2e_log" 2>&1 &
e2e_pid=$!

step "typecheck" npx tsc --noEmit
step "lint" npx eslint . --max-warnings 0
step "database tests (PGlite and PostgreSQL)" npx vitest run --project db --reporter=default --reporter=json --outputFile.json=test-results/db.json

echo; echo "━━ waiting for the end-to-end track (production build, Chromium, format, unit tests), started at the beginning"
wait "$e2e_pid" || status=1
cat "$e2e_log"

node scripts/test-summary.mjs || status=1
exit $status
