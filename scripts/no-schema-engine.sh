#!/bin/sh
# Stands in for Prisma's native schema engine, which these machines cannot download.
# `prisma generate` does not need it; anything that does fails loudly here instead
# of pretending to succeed. Migrations run through scripts/db.ts (WASM engine).
echo "Prisma's native schema engine is not available here; use npm run db:migrate (scripts/db.ts)." >&2
exit 1
