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
# Our own server around Next's handler (keep-alive 65 s, as `next start --keepAliveTimeout 65000`): it sets each
# request's client address from the socket, which the sign-in limit counts by (scripts/server.mjs).
exec node scripts/server.mjs
