-- The statements an OTLP export that adds to a session runs, as SQL functions: the embedded database
-- keeps a function's plan between calls, where a statement sent as text is parsed and planned again on
-- every export (planning these took more time than running them). Each function is one statement
-- (no statement separators in their bodies), reads its arguments by position, and is called by
-- lib/db/trace-increment.ts, which documents what each one reads and writes.
-- Each keeps ONE plan (force_generic_plan) made without sequential scans (enable_seqscan off): the
-- plan is made once per connection, often while the tables are still small, and a plan that scans a
-- small table whole would go on scanning it whole as it grows (every read here is by an index).
-- The SET clauses also keep the planner from trying to inline the function at each call.

-- The stored rows of some traces and the sessions of the groups they and the request reach, as JSON text.
-- A session's trace ids (in its metadata and its aggregate) are left out: an export names only the ones it
-- adds, and the write merges them into the stored list, so an export's work in JS does not grow with them.
CREATE FUNCTION "otlp_increment_load"(text[], text[], text[], int) RETURNS text
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
  WITH r AS (SELECT * FROM "TraceSpan" WHERE "traceId" = ANY($1))
  SELECT json_build_object(
    'rows', (SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
      'spanId', "spanId", 'sessionId', "sessionId", 'digest', digest, 'packed', encode(packed, 'base64'),
      'payload', payload)), '[]') FROM r),
    'sessions', (SELECT coalesce(json_agg(json_build_object('id', s.id, 'externalId', s."externalId", 'format', s.format,
      'metadata', s.metadata - 'traceIds', 'traceState', s."traceState" #- '{spans,traceIds}', 'eventCount', s."eventCount",
      'modelCallCount', s."modelCallCount", 'toolCallCount', s."toolCallCount", 'errorCount', s."errorCount",
      'inputTokens', s."inputTokens", 'outputTokens', s."outputTokens", 'costUsd', s."costUsd",
      'agentId', s."agentId", 'agentVersionId', s."agentVersionId",
      'replays', (SELECT count(*)::int FROM "Replay" p WHERE p."sessionId" = s.id))), '[]')
     FROM "Session" s WHERE s.format = ANY($3) AND s."externalId" = ANY(ARRAY(
       SELECT unnest($2) UNION SELECT DISTINCT substr("groupKey", $4 + 1) FROM r)))
  )::text
$$;

-- What a window of a session needs of the rest of it: arguments session id, event count, the window's
-- first instant as a time and in nanoseconds (and that millisecond's first nanosecond), the window's
-- trace ids, its call ids and its calls' cache keys.
CREATE FUNCTION "otlp_increment_window"(text, int, timestamptz, bigint, bigint, text[], text[], text[]) RETURNS text
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
  WITH tail AS (
    SELECT * FROM "Event" WHERE "sessionId" = $1 AND ("startedAt" >= $3 OR "startedAt" IS NULL)
  ), f AS (SELECT $2 - (SELECT count(*)::int FROM tail) AS n),
  facts AS (SELECT
    (SELECT min(seq) FROM "Event" WHERE "sessionId" = $1 AND kind = 'model_call' AND seq < (SELECT n FROM f)) AS fm,
    (SELECT min(seq) FROM "Event" WHERE "sessionId" = $1 AND kind = 'user_message' AND seq < (SELECT n FROM f)) AS fu,
    (SELECT max(seq) FROM "Event" WHERE "sessionId" = $1 AND kind = 'final_output' AND seq < (SELECT n FROM f)) AS lf,
    (SELECT max(seq) FROM "Event" WHERE "sessionId" = $1 AND kind = 'model_call' AND seq < (SELECT n FROM f)) AS lm)
  SELECT json_build_object(
    'reaching', (SELECT coalesce(json_agg(json_build_object('traceId', "traceId", 'last', last::text)), '[]') FROM (
      SELECT "traceId", max("lastNs") AS last FROM "TraceSpan"
      WHERE "sessionId" = $1 AND "lastNs" >= $4 AND NOT ("traceId" = ANY($6))
      GROUP BY "traceId") x),
    'outside', (SELECT coalesce(json_agg(json_build_object('traceId', "traceId", 'role', role, 'callIds', "callIds")), '[]')
      FROM "TraceSpan" WHERE "callIds" && $7 AND "sessionId" = $1 AND NOT ("traceId" = ANY($6))),
    'tail', (SELECT coalesce(json_agg(to_jsonb(t) ORDER BY t.seq), '[]') FROM tail t),
    'from', (SELECT n FROM f),
    'fm', facts.fm, 'fu', facts.fu, 'lf', facts.lf, 'lm', facts.lm,
    'anchors', (SELECT coalesce(json_agg(json_build_object('seq', seq, 'kind', kind, 'name', name, 'status', status,
        'input', input, 'output', output, 'inputPrefixSeq', "inputPrefixSeq")), '[]')
      FROM "Event" WHERE "sessionId" = $1 AND seq IN (facts.fm, facts.fu, facts.lf, (SELECT n FROM f) - 1)),
    'lastModel', (SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
        'spanId', "spanId", 'sessionId', "sessionId", 'digest', digest, 'packed', encode(packed, 'base64'),
        'payload', payload)), '[]')
      FROM "TraceSpan" WHERE "sessionId" = $1 AND role = 'model' AND "startNs" = (
        SELECT max("startNs") FROM "TraceSpan" WHERE "sessionId" = $1 AND role = 'model' AND "startNs" < $5)),
    'occurrences', (SELECT coalesce(json_agg(json_build_object('k', k, 'occurrence', (
        SELECT occurrence FROM "Event" WHERE "sessionId" = $1 AND "cacheKey" = k AND seq < (SELECT n FROM f)
          AND occurrence IS NOT NULL ORDER BY seq DESC LIMIT 1))), '[]')
      FROM unnest($8) AS k)
  )::text FROM facts
$$;

-- A session's change in one statement: its events from its window on (those past the new event count
-- deleted when the third argument says so, the given ones inserted or updated in place), its new span
-- rows, and its own row. Arguments: session id, new event count, delete past it, events and spans as
-- JSON records, then the session's columns. The metadata's trace ids are the stored ones and the given
-- ones, sorted by code point as JavaScript sorts them.
CREATE FUNCTION "otlp_increment_write"(text, int, boolean, jsonb, jsonb, text, text, text, timestamptz, timestamptz,
  int, int, int, int, int, int, double precision, text[], text, text, jsonb, jsonb) RETURNS int
LANGUAGE sql VOLATILE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
  WITH gone AS (
    DELETE FROM "Event" WHERE $3 AND "sessionId" = $1 AND seq >= $2
  ), written AS (
    INSERT INTO "Event" (id, "sessionId", seq, kind, name, input, output, error, status, "startedAt", "durationMs",
      "inputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq", "inputPrefixCount", "inputDigest")
    SELECT id, "sessionId", seq, kind, name, input, output, error, status, "startedAt", "durationMs",
      "inputTokens", "outputTokens", "costUsd", "parentSeq", "cacheKey", occurrence, "inputPrefixSeq", "inputPrefixCount", "inputDigest"
    FROM jsonb_to_recordset($4) AS x(id text, "sessionId" text, seq int, kind text, name text, input jsonb, output jsonb,
      error jsonb, status text, "startedAt" timestamptz, "durationMs" int, "inputTokens" int, "outputTokens" int,
      "costUsd" float8, "parentSeq" int, "cacheKey" text, occurrence int, "inputPrefixSeq" int, "inputPrefixCount" int,
      "inputDigest" text)
    ON CONFLICT ("sessionId", seq) DO UPDATE SET kind = EXCLUDED.kind, name = EXCLUDED.name, input = EXCLUDED.input,
      output = EXCLUDED.output, error = EXCLUDED.error, status = EXCLUDED.status, "startedAt" = EXCLUDED."startedAt",
      "durationMs" = EXCLUDED."durationMs", "inputTokens" = EXCLUDED."inputTokens", "outputTokens" = EXCLUDED."outputTokens",
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
  ), updated AS (
    UPDATE "Session" SET "agentId" = $6, "agentVersionId" = $7, title = $8,
      "startedAt" = $9, "endedAt" = $10, "durationMs" = $11, "eventCount" = $2,
      "modelCallCount" = $12, "toolCallCount" = $13, "errorCount" = $14,
      "inputTokens" = $15, "outputTokens" = $16, "costUsd" = $17,
      "toolNames" = $18, status = $19, "searchText" = $20, "traceState" = $22,
      metadata = CASE WHEN $21 ? 'traceIds' THEN $21 || jsonb_build_object('traceIds', (
        SELECT coalesce(jsonb_agg(t ORDER BY t COLLATE "C"), '[]'::jsonb) FROM (
          SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(metadata -> 'traceIds') = 'array'
            THEN metadata -> 'traceIds' ELSE '[]'::jsonb END)
          UNION SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof($21 -> 'traceIds') = 'array'
            THEN $21 -> 'traceIds' ELSE '[]'::jsonb END)) AS x(t))) ELSE $21 END
    WHERE id = $1 RETURNING 1
  )
  SELECT count(*)::int FROM updated
$$;
