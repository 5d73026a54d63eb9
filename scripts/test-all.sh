#!/usr/bin/env bash
# Every test: typecheck, lint, unit tests, database tests (PGlite and the
# PostgreSQL server at 127.0.0.1:5432), and, alongside them, a production build
# and the end-to-end suite in Chromium. Runs them all even when one fails, and
# ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1 VITE_CONFIG_NATIVE_IGNORE_WARNING=true
mkdir -p test-results
rm -f test-results/*.json test-results/build.cpu

status=0
# The whole machine's CPU time so far (every process, the PostgreSQL server's too), in seconds: /proc/stat's first line.
machine_cpu() { awk '/^cpu /{ printf "%d %d", ($2 + $3 + $4 + $7 + $8) / 100, ($2 + $3 + $4 + $5 + $6 + $7 + $8) / 100 }' /proc/stat 2>/dev/null; }
read -r busy0 total0 <<< "$(machine_cpu)"
# ", N CPU-s" from a /usr/bin/time -f "%U %S" file (nothing when there is none).
cpu_text() { awk 'NF == 2 { printf ", %.0f CPU-s", $1 + $2 }' "$1" 2>/dev/null; }
step() { # name, command…: its wall time, and the CPU time it and its children used (where /usr/bin/time is)
  local name=$1; shift
  echo; echo "━━ $name"
  local t0=$SECONDS cpu_file; cpu_file=$(mktemp)
  local run=("$@")
  [ -x /usr/bin/time ] && run=(/usr/bin/time -q -f "%U %S" -o "$cpu_file" "$@")
  local ok=0; "${run[@]}" || ok=$?
  local cpu; cpu=$(cpu_text "$cpu_file"); rm -f "$cpu_file"
  if [ "$ok" = 0 ]; then echo "━━ $name: ok ($((SECONDS - t0)) s$cpu)"; echo "pass $name" >> test-results/checks.txt
  else echo "━━ $name: FAILED ($((SECONDS - t0)) s$cpu)"; echo "fail $name" >> test-results/checks.txt; status=1; fi
}
: > test-results/checks.txt

bash scripts/prisma-generate.sh
# Two tracks on two cores. The end-to-end track (the production build, then the suite in Chromium) starts first, in
# the background, and its output is shown at the end; the other track runs the type check, the lint, the database
# tests (two files at a time), the format check and the unit tests, in the foreground.
e2e_log=test-results/e2e-track.log
(
  t0=$SECONDS
  build=(npx next build)
  [ -x /usr/bin/time ] && build=(/usr/bin/time -q -f "%U %S" -o test-results/build.cpu npx next build)
  if "${build[@]}" > test-results/build.log 2>&1; then
    cpu=$(cpu_text test-results/build.cpu)
    echo "━━ production build: ok ($((SECONDS - t0)) s${cpu:-})"; echo "pass production build" >> test-results/checks.txt
    # e2e/chromium.ts runs Debian's chromium-headless-shell when it is installed, else chromium.
    if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}" ] || { [ -z "${CHROMIUM_PATH:-}" ] && [ -x /usr/bin/chromium ]; }; then
      # One Playwright run (two shards at once, E2E_SHARD=1|2 with --shard, each with its own server, measured slower
      # here: the database tests' PGlite property tests then share two cores with two servers and two browsers).
      step "end-to-end tests (Chromium)" npx playwright test
    else
      echo "Chromium is missing at ${CHROMIUM_PATH:-/usr/bin/chromium-headless-shell}: apt-get install -y chromium chromium-headless-shell"
      echo "fail e2e (no chromium)" >> test-results/checks.txt; status=1
    fi
  else
    cat test-results/build.log
    echo "━━ production build: FAILED ($((SECONDS - t0)) s)"; echo "fail production build" >> test-results/checks.txt
    status=1
  fi
  exit $status
) > "$e2e_log" 2>&1 &
e2e_pid=$!

step "typecheck" npx tsc --noEmit
step "lint" npx eslint . --max-warnings 0
step "database tests (PGlite and PostgreSQL)" npx vitest run --project db --reporter=default --reporter=json --outputFile.json=test-results/db.json
step "format" npx prettier --check . --log-level warn
step "unit tests" npx vitest run --project unit --reporter=default --reporter=json --outputFile.json=test-results/unit.json

echo; echo "━━ waiting for the end-to-end track (production build, Chromium), started at the beginning"
wait "$e2e_pid" || status=1
cat "$e2e_log"

read -r busy1 total1 <<< "$(machine_cpu)"
if [ -n "${total1:-}" ] && [ "$total1" -gt "$total0" ]; then
  echo; echo "━━ the machine: $((busy1 - busy0)) CPU-s busy of $((total1 - total0)) over ${SECONDS} s ($(((busy1 - busy0) * 100 / (total1 - total0)))% of $(nproc) cores)"
fi
node scripts/test-summary.mjs || status=1
exit $status
