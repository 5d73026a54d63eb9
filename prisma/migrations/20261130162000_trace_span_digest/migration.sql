-- A stored span keeps what a rebuild needs: its payload gzipped (`packed`), and a small
-- digest of what the session-level fields and the incremental ingest read (role, timing,
-- call ids, grouping). Older rows keep their JSON payload until a rebuild of their group
-- rewrites them.
ALTER TABLE "TraceSpan" ALTER COLUMN "payload" DROP NOT NULL,
ADD COLUMN     "packed" BYTEA,
ADD COLUMN     "digest" JSONB;

-- An export reaches the stored spans of its traces (a child span may sit under its trace's own key).
CREATE INDEX "TraceSpan_traceId_idx" ON "TraceSpan"("traceId");
