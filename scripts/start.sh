#!/usr/bin/env bash
# Starts the dashboard at http://127.0.0.1:3000 on the embedded database
# (BRANCHPOINT_DATA_DIR, default ./.data), building first when the build is
# missing or older than the sources. Migrations and demo data are applied by
# the server itself on start.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
[ -d lib/db/generated ] || bash scripts/prisma-generate.sh
dist="${NEXT_DIST_DIR:-.next}"
if [ ! -f "$dist/BUILD_ID" ] || [ -n "$(find app components lib prisma next.config.js package.json -newer "$dist/BUILD_ID" -type f -not -path 'lib/db/generated/*' -print -quit)" ]; then
  echo "Building Branchpoint (first start or changed sources)…"
  npx next build
fi
export HOST="${HOST:-127.0.0.1}" PORT="${PORT:-3000}"
# Idle keep-alive connections stay open 65 s, past the 60 s of common load balancers and clients' pools: closed at
# Node's 5 s, a client reusing one at that moment gets ECONNRESET.
exec npx next start -H "$HOST" -p "$PORT" --keepAliveTimeout 65000
