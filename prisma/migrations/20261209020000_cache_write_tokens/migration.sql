-- A model call's input tokens written to a prompt cache: a part of "inputTokens" apart from the cached
-- reads, priced at the price's cache-write rate when it has one, else as input (lib/prices/prices.ts and
-- lib/db/prices.ts). Null: the source did not say.
ALTER TABLE "Event" ADD COLUMN "cacheWriteInputTokens" INTEGER;

-- A price's cache-write rate (micro-dollars per million tokens). Null: the input rate.
ALTER TABLE "ModelPrice" ADD COLUMN "cacheWriteInputMicros" INTEGER;

-- The shipped Anthropic prices get their cache-write rate (lib/prices/defaults.ts), on the rows the start
-- added (it never changes a row, so rows it seeded before are set here). No event
-- has cache-write tokens before this migration, so no stored cost changes.
UPDATE "ModelPrice" p SET "cacheWriteInputMicros" = v.micros
FROM (VALUES
  ('claude-3-haiku', 300000),
  ('claude-3-5-haiku', 1000000),
  ('claude-haiku-4-5', 1250000),
  ('claude-3-5-sonnet', 3750000),
  ('claude-3-7-sonnet', 3750000),
  ('claude-sonnet-4', 3750000),
  ('claude-3-opus', 18750000),
  ('claude-opus-4', 18750000),
  ('claude-opus-4-5', 6250000)) AS v(model, micros)
WHERE p.model = v.model AND p.match = 'prefix' AND p.origin = 'default'
  AND p."validFrom" = '2023-01-01T00:00:00Z' AND p."cacheWriteInputMicros" IS NULL;

-- The trace export's write stores the new column with the rest of each event (otherwise as before).
CREATE OR REPLACE FUNCTION "otlp_increment_write"(text, int, boolean, jsonb, jsonb, text, text, text, timestamptz, timestamptz,
  int, int, int, int, int, int, double precision, text[], text, text, jsonb, jsonb) RETURNS int
LANGUAGE sql VOLATILE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
  WITH gone AS (
    DELETE FROM "Event" WHERE $3 AND "sessionId" = $1 AND seq >= $2
  ), written AS (
    INSERT INTO "Event" (id, "sessionId", seq, kind, name, input, output, error, status, "startedAt", "durationMs",
      "inputTokens", "cachedInputTokens", "cacheWriteInputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq",
      "inputPrefixCount", "inputDigest")
    SELECT id, "sessionId", seq, kind, name, input, output, error, status, "startedAt", "durationMs",
      "inputTokens", "cachedInputTokens", "cacheWriteInputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq",
      "inputPrefixCount", "inputDigest"
    FROM jsonb_to_recordset($4) AS x(id text, "sessionId" text, seq int, kind text, name text, input jsonb, output jsonb,
      error jsonb, status text, "startedAt" timestamptz, "durationMs" int, "inputTokens" int, "cachedInputTokens" int, "cacheWriteInputTokens" int, "outputTokens" int,
      "costUsd" float8, "parentSeq" int, "cacheKey" text, occurrence int, "inputPrefixSeq" int, "inputPrefixCount" int,
      "inputDigest" text)
    ON CONFLICT ("sessionId", seq) DO UPDATE SET kind = EXCLUDED.kind, name = EXCLUDED.name, input = EXCLUDED.input,
      output = EXCLUDED.output, error = EXCLUDED.error, status = EXCLUDED.status, "startedAt" = EXCLUDED."startedAt",
      "durationMs" = EXCLUDED."durationMs", "inputTokens" = EXCLUDED."inputTokens",
      "cachedInputTokens" = EXCLUDED."cachedInputTokens",
      "cacheWriteInputTokens" = EXCLUDED."cacheWriteInputTokens", "outputTokens" = EXCLUDED."outputTokens",
      "costUsd" = EXCLUDED."costUsd", "parentSeq" = EXCLUDED."parentSeq", "cacheKey" = EXCLUDED."cacheKey",
      occurrence = EXCLUDED.occurrence, "inputPrefixSeq" = EXCLUDED."inputPrefixSeq",
      "inputPrefixCount" = EXCLUDED."inputPrefixCount", "inputDigest" = EXCLUDED."inputDigest"
  ), stored AS (
    INSERT INTO "TraceSpan" (id, "groupKey", "traceId", "spanId", "sessionId", packed, digest, "startNs", "lastNs", role, "callIds")
    SELECT id, "groupKey", "traceId", "spanId", "sessionId", decode(packed, 'base64'), digest, "startNs"::bigint,
      "lastNs"::bigint, role, coalesce("callIds", ARRAY[]::text[])
    FROM jsonb_to_recordset($5) AS x(id text, "groupKey" text, "traceId" text,
      "spanId" text, "sessionId" text, packed text, digest jsonb, "startNs" text, "lastNs" text, role text, "callIds" text[])
    ON CONFLICT ("groupKey", "traceId", "spanId") DO NOTHING
  ), listed AS (
    INSERT INTO "SessionTrace" ("sessionId", "traceId")
    SELECT DISTINCT $1, t #>> '{}' FROM jsonb_array_elements(CASE WHEN jsonb_typeof($21 -> 'traceIds') = 'array'
      THEN $21 -> 'traceIds' ELSE '[]'::jsonb END || coalesce((SELECT CASE WHEN jsonb_typeof(metadata -> 'traceIds') = 'array'
      THEN metadata -> 'traceIds' END FROM "Session" WHERE id = $1), '[]'::jsonb)) AS x(t)
    WHERE jsonb_typeof(t) = 'string'
    ON CONFLICT DO NOTHING
  ), updated AS (
    UPDATE "Session" SET "agentId" = $6, "agentVersionId" = $7, title = $8,
      "startedAt" = $9, "endedAt" = $10, "durationMs" = $11, "eventCount" = $2,
      "modelCallCount" = $12, "toolCallCount" = $13, "errorCount" = $14,
      "inputTokens" = $15, "outputTokens" = $16, "costUsd" = $17,
      "toolNames" = $18, status = $19, "searchText" = $20, "traceState" = $22,
      metadata = CASE WHEN jsonb_typeof($21) = 'object' THEN $21 - 'traceIds' ELSE $21 END
    WHERE id = $1 RETURNING 1
  )
  SELECT count(*)::int FROM updated
$$;

-- OTLP log records are deleted once older than BRANCHPOINT_TRACE_LOG_DAYS (the job sweep): by their arrival.
CREATE INDEX "TraceLog_receivedAt_idx" ON "TraceLog"("receivedAt");
