#!/usr/bin/env bash
# Generates the Prisma client without downloading Prisma's native engines
# (the registry is the only host these machines reach). See STACK.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PRISMA_SCHEMA_ENGINE_BINARY="$PWD/scripts/no-schema-engine.sh"
export CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
npx --no-install prisma generate --schema prisma/schema.prisma >/dev/null
