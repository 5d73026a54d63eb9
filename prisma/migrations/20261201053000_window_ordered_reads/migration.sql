-- A window's first and last events of a kind, and the prefix's last model span, are read as the first row
-- of an index in order (ORDER BY ... LIMIT 1), not as min() or max(). Given min() or max(), the planner
-- may aggregate every matching index entry instead, and on PostgreSQL did whenever it thought the
-- session had a row or two (tables not analyzed yet, as in a fresh database, and so until autovacuum's
-- next ANALYZE): an export read each of its session's model calls three times and its final answers twice.
-- Written as the first row in order, no statistics make the planner read more than that row. The
-- anchors (events at those seqs) are read one by one by the session's seq key, for the same reason:
-- as "seq IN (...)", the planner could read the session by another index and filter it.
CREATE OR REPLACE FUNCTION "otlp_increment_window"(text, int, timestamptz, bigint, bigint, text[], text[], text[]) RETURNS text
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
  WITH tail AS (
    SELECT * FROM "Event" WHERE "sessionId" = $1 AND ("startedAt" >= $3 OR "startedAt" IS NULL)
  ), f AS (SELECT $2 - (SELECT count(*)::int FROM tail) AS n),
  facts AS (SELECT
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = 'model_call' AND seq < (SELECT n FROM f)
      ORDER BY seq LIMIT 1) AS fm,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = 'user_message' AND seq < (SELECT n FROM f)
      ORDER BY seq LIMIT 1) AS fu,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = 'final_output' AND seq < (SELECT n FROM f)
      ORDER BY seq DESC LIMIT 1) AS lf,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = 'model_call' AND seq < (SELECT n FROM f)
      ORDER BY seq DESC LIMIT 1) AS lm)
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
      FROM (SELECT DISTINCT s FROM unnest(ARRAY[facts.fm, facts.fu, facts.lf, (SELECT n FROM f) - 1]) AS u(s)) AS a
        CROSS JOIN LATERAL (SELECT * FROM "Event" WHERE "sessionId" = $1 AND seq = a.s LIMIT 1) AS e),
    'lastModel', (SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
        'spanId', "spanId", 'sessionId', "sessionId", 'digest', digest, 'packed', encode(packed, 'base64'),
        'payload', payload)), '[]')
      FROM "TraceSpan" WHERE "sessionId" = $1 AND role = 'model' AND "startNs" = (
        SELECT "startNs" FROM "TraceSpan" WHERE "sessionId" = $1 AND role = 'model' AND "startNs" < $5
        ORDER BY "startNs" DESC LIMIT 1)),
    'occurrences', (SELECT coalesce(json_agg(json_build_object('k', k, 'occurrence', (
        SELECT occurrence FROM "Event" WHERE "sessionId" = $1 AND "cacheKey" = k AND seq < (SELECT n FROM f)
          AND occurrence IS NOT NULL ORDER BY seq DESC LIMIT 1))), '[]')
      FROM unnest($8) AS k)
  )::text FROM facts
$$;

-- The Agents SDK's window read, as a function for the same reasons as the OTLP one (one plan per
-- connection, made without MCV lists): sent as text, each export planned it for its session id, and a
-- session the statistics do not know (rows=1) left the planner free to read the tail and the reaching
-- spans by any index that starts with the session id, filtering the rest of the session row by row.
-- The tail and the events without a start time are one read, as the OTLP window's (one condition on
-- "startedAt" per arm of an OR: read by the index on it, whatever the statistics), each a part of it.
-- Arguments: session id, event count, the window's first instant as a time and in nanoseconds, the
-- window's trace ids and its calls' cache keys.
CREATE FUNCTION "agents_increment_window"(text, int, timestamptz, bigint, text[], text[]) RETURNS text
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
  WITH near AS (
    SELECT * FROM "Event" WHERE "sessionId" = $1 AND ("startedAt" >= $3 OR "startedAt" IS NULL)
  ), tail AS (SELECT * FROM near WHERE "startedAt" >= $3),
  f AS (SELECT $2 - (SELECT count(*)::int FROM tail) AS n),
  facts AS (SELECT
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = 'model_call' AND seq < (SELECT n FROM f)
      ORDER BY seq LIMIT 1) AS fm,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = 'user_message' AND seq < (SELECT n FROM f)
      ORDER BY seq LIMIT 1) AS fu,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = 'final_output' AND seq < (SELECT n FROM f)
      ORDER BY seq DESC LIMIT 1) AS lf,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = 'model_call' AND seq < (SELECT n FROM f)
      ORDER BY seq DESC LIMIT 1) AS lm)
  SELECT json_build_object(
    'reaching', (SELECT coalesce(json_agg(json_build_object('traceId', "traceId", 'last', last::text)), '[]') FROM (
      SELECT "traceId", max("lastNs") AS last FROM "TraceSpan"
      WHERE "sessionId" = $1 AND "lastNs" >= $4 AND NOT ("traceId" = ANY($5))
      GROUP BY "traceId") x),
    'tail', (SELECT coalesce(json_agg(to_jsonb(t) ORDER BY t.seq), '[]') FROM tail t),
    'from', (SELECT n FROM f),
    'untimed', (SELECT count(*)::int FROM near WHERE "startedAt" IS NULL),
    'fm', facts.fm, 'fu', facts.fu, 'lf', facts.lf, 'lm', facts.lm,
    'anchors', (SELECT coalesce(json_agg(json_build_object('seq', seq, 'kind', kind, 'name', name, 'status', status,
        'input', input, 'output', output, 'inputPrefixSeq', "inputPrefixSeq")), '[]')
      FROM (SELECT DISTINCT s FROM unnest(ARRAY[facts.fm, facts.fu, facts.lf, (SELECT n FROM f) - 1]) AS u(s)) AS a
        CROSS JOIN LATERAL (SELECT * FROM "Event" WHERE "sessionId" = $1 AND seq = a.s LIMIT 1) AS e),
    'lastModel', (SELECT coalesce(json_agg(json_build_object('id', id, 'groupKey', "groupKey", 'traceId', "traceId",
        'spanId', "spanId", 'sessionId', "sessionId", 'packed', encode(packed, 'base64'), 'payload', payload)), '[]')
      FROM "TraceSpan" WHERE "sessionId" = $1 AND role = 'model' AND "startNs" = (
        SELECT "startNs" FROM "TraceSpan" WHERE "sessionId" = $1 AND role = 'model' AND "startNs" < $4
        ORDER BY "startNs" DESC LIMIT 1)),
    'occurrences', (SELECT coalesce(json_agg(json_build_object('k', k, 'occurrence', (
        SELECT occurrence FROM "Event" WHERE "sessionId" = $1 AND "cacheKey" = k AND seq < (SELECT n FROM f)
          AND occurrence IS NOT NULL ORDER BY seq DESC LIMIT 1))), '[]')
      FROM unnest($6) AS k)
  )::text FROM facts
$$;
