-- A stored span is its JSON as UTF-8 bytes from now on, not gzipped JSON: the database compresses the column as
-- it does any large value (TOAST), and gzipping each span in the server cost about a tenth of an export. The
-- increment's write takes each span as its JSON text (converted to bytes here) where it took base64, and marks
-- the session's cost to be worked out again in the same statement (it took one of its own). Rows stored gzipped
-- stay as they are and are read as before (their first two bytes tell them apart).
--
-- A trace export's locks are one call where they were three statements: first its trace ids, then the group
-- keys its own spans name together with those its traces' stored rows are under, read once the trace locks are
-- held (a trace's rows change group only by an export of that trace). Each set is taken in sorted order, so two
-- exports never wait on each other crosswise.
--
-- Bodies are escape strings with each semicolon written as \073: the migration runner splits scripts at them.

CREATE OR REPLACE FUNCTION "otlp_increment_write"(text, integer, boolean, jsonb, jsonb, text, text, text, timestamp with time zone, timestamp with time zone, integer, integer, integer, integer, integer, integer, double precision, text[], text, text, jsonb, jsonb) RETURNS integer
LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' AS E'
DECLARE written_count int\073
BEGIN
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
    SELECT id, "groupKey", "traceId", "spanId", "sessionId", convert_to(span, \'UTF8\'), digest, "startNs"::bigint,
      "lastNs"::bigint, role, coalesce("callIds", ARRAY[]::text[])
    FROM jsonb_to_recordset($5) AS x(id text, "groupKey" text, "traceId" text,
      "spanId" text, "sessionId" text, span text, digest jsonb, "startNs" text, "lastNs" text, role text, "callIds" text[])
    ON CONFLICT ("groupKey", "traceId", "spanId") DO NOTHING
  ), listed AS (
    INSERT INTO "SessionTrace" ("sessionId", "traceId")
    SELECT DISTINCT $1, t #>> \'{}\' FROM jsonb_array_elements(CASE WHEN jsonb_typeof($21 -> \'traceIds\') = \'array\'
      THEN $21 -> \'traceIds\' ELSE \'[]\'::jsonb END || coalesce((SELECT CASE WHEN jsonb_typeof(metadata -> \'traceIds\') = \'array\'
      THEN metadata -> \'traceIds\' END FROM "Session" WHERE id = $1), \'[]\'::jsonb)) AS x(t)
    WHERE jsonb_typeof(t) = \'string\'
    ON CONFLICT DO NOTHING
  ), updated AS (
    UPDATE "Session" SET "agentId" = $6, "agentVersionId" = $7, title = $8,
      "startedAt" = $9, "endedAt" = $10, "durationMs" = $11, "eventCount" = $2,
      "modelCallCount" = $12, "toolCallCount" = $13, "errorCount" = $14,
      "inputTokens" = $15, "outputTokens" = $16, "costUsd" = $17,
      "toolNames" = $18, status = $19, "searchText" = $20, "traceState" = $22,
      "costSource" = CASE WHEN $15 = 0 AND $16 = 0 THEN \'none\' END, "costMicros" = NULL,
      metadata = CASE WHEN jsonb_typeof($21) = \'object\' THEN $21 - \'traceIds\' ELSE $21 END
    WHERE id = $1 RETURNING 1
  )
  SELECT count(*)::int INTO written_count FROM updated\073
  RETURN written_count\073
END
';

CREATE OR REPLACE FUNCTION "trace_request_lock"(text[], text[], text[]) RETURNS integer
LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' AS E'
BEGIN
  PERFORM count(*) FROM (SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
    FROM (SELECT DISTINCT k FROM unnest($1) AS k) AS t ORDER BY k) AS locked\073
  PERFORM count(*) FROM (SELECT pg_advisory_xact_lock(hashtextextended(k, 0))
    FROM (SELECT k FROM unnest($2) AS k
      UNION SELECT "groupKey" FROM "TraceSpan" WHERE "traceId" = ANY($3)) AS t ORDER BY k) AS locked\073
  RETURN 0\073
END
';
