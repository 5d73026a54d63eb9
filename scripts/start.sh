#!/usr/bin/env bash
# Starts the dashboard at http://127.0.0.1:3000 on the embedded database
# (BRANCHPOINT_DATA_DIR, default ./.data), building first when the build is
# missing or older than the sources. Migrations and demo data are applied by
# the server itself on start. Says what it is doing, and for how long so far.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
t0=$SECONDS
say() { echo "[branchpoint +$((SECONDS - t0)) s] $*"; }

# Node 20.19 or newer: the first 20.x with require(esm), which the server's packages rely on.
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "Branchpoint needs Node.js 20.19 or newer; this is $(node -v). Install a newer Node.js and run npm start again." >&2
  exit 1
fi

[ -d lib/db/generated ] || { say "Generating the database client…"; bash scripts/prisma-generate.sh; }
dist="${NEXT_DIST_DIR:-.next}"
if [ ! -f "$dist/BUILD_ID" ] || [ -n "$(find app components lib prisma next.config.js package.json -newer "$dist/BUILD_ID" -type f -not -path 'lib/db/generated/*' -print -quit)" ]; then
  say "Building the dashboard (first start, or the sources changed): about 3 to 4 minutes on two cores."
  say "Next prints its steps below; type-checking and linting are left to npm test."
  npx next build
  say "Built."
fi
export HOST="${HOST:-127.0.0.1}" PORT="${PORT:-3000}"
say "Starting the server: it applies the database migrations and, on a new database, loads the demo data (about 20 s the first time)."
# Our own server around Next's handler (keep-alive 65 s, as `next start --keepAliveTimeout 65000`): it sets each
# request's client address from the socket, which the sign-in limit counts by (scripts/server.mjs).
export BRANCHPOINT_START_T0="$(($(date +%s) - (SECONDS - t0)))"
exec node scripts/server.mjs
