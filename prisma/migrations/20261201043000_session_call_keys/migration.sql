-- A span's call ids as keys of its session: each call id behind its session id, which is behind its
-- length (so that no pair of a session id and a call id reads as another pair, whatever characters
-- either holds). NULL for a span without a session.
CREATE FUNCTION span_call_keys(text, text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT array(SELECT length($1)::text || ':' || $1 || c FROM unnest($2) AS c)
$$;

-- The spans naming call ids are looked up by session and call id together: by the call ids alone, a
-- provider that reuses short ids (call_0, call_1 ...) made each export read every session's spans
-- naming them. Nothing else reads the call ids' own index.
CREATE INDEX "TraceSpan_sessionCallKeys_idx" ON "TraceSpan" USING GIN (span_call_keys("sessionId", "callIds"))
WITH (fastupdate = off);

DROP INDEX "TraceSpan_callIds_idx";

-- What a window of a session needs of the rest of it: arguments session id, event count, the window's
-- first instant as a time and in nanoseconds (and that millisecond's first nanosecond), the window's
-- trace ids, its call ids and its calls' cache keys. The spans of other traces naming its call ids are
-- read by the keys of this session alone (the keys hold the session: no filter on it to intersect with).
CREATE OR REPLACE FUNCTION "otlp_increment_window"(text, int, timestamptz, bigint, bigint, text[], text[], text[]) RETURNS text
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
      FROM "TraceSpan" WHERE span_call_keys("sessionId", "callIds") && span_call_keys($1, $7)
        AND NOT ("traceId" = ANY($6))),
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
