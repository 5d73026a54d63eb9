-- An OTLP export that adds spans to a session reads only what it touches: the spans of its
-- traces (by trace id), the spans that reach into its window (by end time), the spans that
-- share a call id with it, the last model span before it, and the events from its window on.
-- Columns copied out of the digest make those reads indexed: the session keeps what its own
-- fields need from ALL its spans as one aggregate (`traceState`), updated by each export.
ALTER TABLE "TraceSpan" ADD COLUMN "startNs" BIGINT,
ADD COLUMN "lastNs" BIGINT,
ADD COLUMN "role" TEXT,
ADD COLUMN "callIds" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Rows stored with a digest get the columns now: rows stored before digests get them when a rebuild rewrites them.
-- A time past what BIGINT holds (exports now refuse one, older ones were taken up to 2^64 - 1) loses its digest
-- instead, so that its session takes the full rebuild rather than failing the migration.
UPDATE "TraceSpan" SET digest = NULL
WHERE digest IS NOT NULL AND jsonb_typeof(digest) = 'object' AND (
  (digest->>'start') ~ '^[0-9]+$' AND (digest->>'start')::numeric > 9223372036854775807
  OR (digest->>'end') ~ '^[0-9]+$' AND (digest->>'end')::numeric > 9223372036854775807
);
UPDATE "TraceSpan" SET
  "startNs" = (digest->>'start')::bigint,
  "lastNs" = GREATEST((digest->>'start')::bigint, COALESCE((digest->>'end')::bigint, (digest->>'start')::bigint)),
  "role" = digest->>'role',
  "callIds" = CASE
    WHEN digest->>'role' = 'model' THEN ARRAY(SELECT jsonb_array_elements_text(COALESCE(digest->'requests', '[]'::jsonb)))
    WHEN digest->>'role' = 'tool' AND digest->>'callId' IS NOT NULL THEN ARRAY[digest->>'callId']
    ELSE ARRAY[]::TEXT[]
  END
WHERE digest IS NOT NULL AND jsonb_typeof(digest) = 'object' AND digest ? 'traceId';

CREATE INDEX "TraceSpan_sessionId_lastNs_idx" ON "TraceSpan"("sessionId", "lastNs");
CREATE INDEX "TraceSpan_sessionId_role_startNs_idx" ON "TraceSpan"("sessionId", "role", "startNs");
-- fastupdate off: a pending list would make every lookup scan all the inserts since the last vacuum.
CREATE INDEX "TraceSpan_callIds_idx" ON "TraceSpan" USING GIN ("callIds") WITH (fastupdate = off);

-- Null until the first export after this migration computes it (from the session's digests).
ALTER TABLE "Session" ADD COLUMN "traceState" JSONB;

-- The window's events by time, the occurrences before it by call, the first and last of a kind by seq.
CREATE INDEX "Event_sessionId_startedAt_idx" ON "Event"("sessionId", "startedAt");
CREATE INDEX "Event_sessionId_cacheKey_seq_idx" ON "Event"("sessionId", "cacheKey", "seq");
DROP INDEX "Event_sessionId_kind_idx";
CREATE INDEX "Event_sessionId_kind_seq_idx" ON "Event"("sessionId", "kind", "seq");
