-- The database functions behind the OTLP / Agents SDK increment and a replay's run context, as PL/pgSQL. As
-- LANGUAGE sql functions with SET options (which keep them from being inlined), PostgreSQL before 18 plans their
-- body again on every call: measured on PostgreSQL 15, replay_run_context took 1.8 ms a call, 13 times its
-- PL/pgSQL twin (0.14 ms), whose statement is prepared once per connection and then reused (the generic plan, as
-- plan_cache_mode says). Bodies, arguments and results are unchanged. Each body is an escape string with each
-- semicolon written as \073: the migration runner splits scripts at them.

CREATE OR REPLACE FUNCTION "otlp_increment_load"(text[], text[], text[], integer) RETURNS text
LANGUAGE plpgsql STABLE SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' AS E'
BEGIN
  RETURN (
  WITH r AS (SELECT * FROM "TraceSpan" WHERE "traceId" = ANY($1))
  SELECT json_build_object(
    \'rows\', (SELECT coalesce(json_agg(json_build_object(\'id\', id, \'groupKey\', "groupKey", \'traceId\', "traceId",
      \'spanId\', "spanId", \'sessionId\', "sessionId", \'digest\', digest, \'packed\', encode(packed, \'base64\'),
      \'payload\', payload)), \'[]\') FROM r),
    \'sessions\', (SELECT coalesce(json_agg(json_build_object(\'id\', s.id, \'externalId\', s."externalId", \'format\', s.format,
      \'metadata\', s.metadata - \'traceIds\', \'traceState\', s."traceState" #- \'{spans,traceIds}\', \'eventCount\', s."eventCount",
      \'modelCallCount\', s."modelCallCount", \'toolCallCount\', s."toolCallCount", \'errorCount\', s."errorCount",
      \'inputTokens\', s."inputTokens", \'outputTokens\', s."outputTokens", \'costUsd\', s."costUsd",
      \'agentId\', s."agentId", \'agentVersionId\', s."agentVersionId",
      \'replays\', (SELECT count(*)::int FROM "Replay" p WHERE p."sessionId" = s.id))), \'[]\')
     FROM "Session" s WHERE s.format = ANY($3) AND s."externalId" = ANY(ARRAY(
       SELECT unnest($2) UNION SELECT DISTINCT substr("groupKey", $4 + 1) FROM r)))
  )::text
  )\073
END
';

CREATE OR REPLACE FUNCTION "agents_increment_window"(text, integer, timestamp with time zone, bigint, text[], text[]) RETURNS text
LANGUAGE plpgsql STABLE SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' AS E'
BEGIN
  RETURN (
  WITH near AS (
    SELECT * FROM "Event" WHERE "sessionId" = $1 AND ("startedAt" >= $3 OR "startedAt" IS NULL)
  ), tail AS (SELECT * FROM near WHERE "startedAt" >= $3),
  f AS (SELECT $2 - (SELECT count(*)::int FROM tail) AS n),
  facts AS (SELECT
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = \'model_call\' AND seq < (SELECT n FROM f)
      ORDER BY seq LIMIT 1) AS fm,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = \'user_message\' AND seq < (SELECT n FROM f)
      ORDER BY seq LIMIT 1) AS fu,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = \'final_output\' AND seq < (SELECT n FROM f)
      ORDER BY seq DESC LIMIT 1) AS lf,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = \'model_call\' AND seq < (SELECT n FROM f)
      ORDER BY seq DESC LIMIT 1) AS lm)
  SELECT json_build_object(
    \'reaching\', (SELECT coalesce(json_agg(json_build_object(\'traceId\', "traceId", \'last\', last::text)), \'[]\') FROM (
      SELECT "traceId", max("lastNs") AS last FROM "TraceSpan"
      WHERE "sessionId" = $1 AND "lastNs" >= $4 AND NOT ("traceId" = ANY($5))
      GROUP BY "traceId") x),
    \'tail\', (SELECT coalesce(json_agg(to_jsonb(t) ORDER BY t.seq), \'[]\') FROM tail t),
    \'from\', (SELECT n FROM f),
    \'untimed\', (SELECT count(*)::int FROM near WHERE "startedAt" IS NULL),
    \'fm\', facts.fm, \'fu\', facts.fu, \'lf\', facts.lf, \'lm\', facts.lm,
    \'anchors\', (SELECT coalesce(json_agg(json_build_object(\'seq\', seq, \'kind\', kind, \'name\', name, \'status\', status,
        \'input\', input, \'output\', output, \'inputPrefixSeq\', "inputPrefixSeq")), \'[]\')
      FROM (SELECT DISTINCT s FROM unnest(ARRAY[facts.fm, facts.fu, facts.lf, (SELECT n FROM f) - 1]) AS u(s)) AS a
        CROSS JOIN LATERAL (SELECT * FROM "Event" WHERE "sessionId" = $1 AND seq = a.s LIMIT 1) AS e),
    \'lastModel\', (SELECT coalesce(json_agg(json_build_object(\'id\', id, \'groupKey\', "groupKey", \'traceId\', "traceId",
        \'spanId\', "spanId", \'sessionId\', "sessionId", \'packed\', encode(packed, \'base64\'), \'payload\', payload)), \'[]\')
      FROM "TraceSpan" WHERE "sessionId" = $1 AND role = \'model\' AND "startNs" = (
        SELECT "startNs" FROM "TraceSpan" WHERE "sessionId" = $1 AND role = \'model\' AND "startNs" < $4
        ORDER BY "startNs" DESC LIMIT 1)),
    \'occurrences\', (SELECT coalesce(json_agg(json_build_object(\'k\', k, \'occurrence\', (
        SELECT occurrence FROM "Event" WHERE "sessionId" = $1 AND "cacheKey" = k AND seq < (SELECT n FROM f)
          AND occurrence IS NOT NULL ORDER BY seq DESC LIMIT 1))), \'[]\')
      FROM unnest($6) AS k)
  )::text FROM facts
  )\073
END
';

CREATE OR REPLACE FUNCTION "otlp_increment_window"(text, integer, timestamp with time zone, bigint, bigint, text[], text[], text[]) RETURNS text
LANGUAGE plpgsql STABLE SET plan_cache_mode TO 'force_generic_plan' SET enable_seqscan TO 'off' AS E'
BEGIN
  RETURN (
  WITH tail AS (
    SELECT * FROM "Event" WHERE "sessionId" = $1 AND ("startedAt" >= $3 OR "startedAt" IS NULL)
  ), f AS (SELECT $2 - (SELECT count(*)::int FROM tail) AS n),
  facts AS (SELECT
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = \'model_call\' AND seq < (SELECT n FROM f)
      ORDER BY seq LIMIT 1) AS fm,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = \'user_message\' AND seq < (SELECT n FROM f)
      ORDER BY seq LIMIT 1) AS fu,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = \'final_output\' AND seq < (SELECT n FROM f)
      ORDER BY seq DESC LIMIT 1) AS lf,
    (SELECT seq FROM "Event" WHERE "sessionId" = $1 AND kind = \'model_call\' AND seq < (SELECT n FROM f)
      ORDER BY seq DESC LIMIT 1) AS lm)
  SELECT json_build_object(
    \'reaching\', (SELECT coalesce(json_agg(json_build_object(\'traceId\', "traceId", \'last\', last::text)), \'[]\') FROM (
      SELECT "traceId", max("lastNs") AS last FROM "TraceSpan"
      WHERE "sessionId" = $1 AND "lastNs" >= $4 AND NOT ("traceId" = ANY($6))
      GROUP BY "traceId") x),
    \'outside\', (SELECT coalesce(json_agg(json_build_object(\'traceId\', "traceId", \'role\', role, \'callIds\', "callIds")), \'[]\')
      FROM "TraceSpan" WHERE span_call_keys("sessionId", "callIds") && span_call_keys($1, $7)
        AND NOT ("traceId" = ANY($6))),
    \'tail\', (SELECT coalesce(json_agg(to_jsonb(t) ORDER BY t.seq), \'[]\') FROM tail t),
    \'from\', (SELECT n FROM f),
    \'fm\', facts.fm, \'fu\', facts.fu, \'lf\', facts.lf, \'lm\', facts.lm,
    \'anchors\', (SELECT coalesce(json_agg(json_build_object(\'seq\', seq, \'kind\', kind, \'name\', name, \'status\', status,
        \'input\', input, \'output\', output, \'inputPrefixSeq\', "inputPrefixSeq")), \'[]\')
      FROM (SELECT DISTINCT s FROM unnest(ARRAY[facts.fm, facts.fu, facts.lf, (SELECT n FROM f) - 1]) AS u(s)) AS a
        CROSS JOIN LATERAL (SELECT * FROM "Event" WHERE "sessionId" = $1 AND seq = a.s LIMIT 1) AS e),
    \'lastModel\', (SELECT coalesce(json_agg(json_build_object(\'id\', id, \'groupKey\', "groupKey", \'traceId\', "traceId",
        \'spanId\', "spanId", \'sessionId\', "sessionId", \'digest\', digest, \'packed\', encode(packed, \'base64\'),
        \'payload\', payload)), \'[]\')
      FROM "TraceSpan" WHERE "sessionId" = $1 AND role = \'model\' AND "startNs" = (
        SELECT "startNs" FROM "TraceSpan" WHERE "sessionId" = $1 AND role = \'model\' AND "startNs" < $5
        ORDER BY "startNs" DESC LIMIT 1)),
    \'occurrences\', (SELECT coalesce(json_agg(json_build_object(\'k\', k, \'occurrence\', (
        SELECT occurrence FROM "Event" WHERE "sessionId" = $1 AND "cacheKey" = k AND seq < (SELECT n FROM f)
          AND occurrence IS NOT NULL ORDER BY seq DESC LIMIT 1))), \'[]\')
      FROM unnest($8) AS k)
  )::text FROM facts
  )\073
END
';

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
    SELECT id, "groupKey", "traceId", "spanId", "sessionId", decode(packed, \'base64\'), digest, "startNs"::bigint,
      "lastNs"::bigint, role, coalesce("callIds", ARRAY[]::text[])
    FROM jsonb_to_recordset($5) AS x(id text, "groupKey" text, "traceId" text,
      "spanId" text, "sessionId" text, packed text, digest jsonb, "startNs" text, "lastNs" text, role text, "callIds" text[])
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
      metadata = CASE WHEN jsonb_typeof($21) = \'object\' THEN $21 - \'traceIds\' ELSE $21 END
    WHERE id = $1 RETURNING 1
  )
  SELECT count(*)::int INTO written_count FROM updated\073
  RETURN written_count\073
END
';

CREATE OR REPLACE FUNCTION "replay_run_context"(text) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode TO 'force_generic_plan' AS E'
BEGIN
  RETURN (
  SELECT row_to_json(x) FROM (
    SELECT r.id, r."sessionId", r."policySnapshot", r.edits, r."createdBy", r."modelEndpointId",
           e.id AS "experimentId", e."agentVersionId" AS "experimentAgentVersionId", s."agentId", a.adapter,
           (SELECT COALESCE(json_agg(json_build_array(t.name, t."sideEffect", EXISTS (
              SELECT 1 FROM "ToolEndpoint" te WHERE te."toolName" = t.name AND te."readOnly"))), \'[]\'::json)
              FROM "Tool" t WHERE t."agentId" = s."agentId") AS tools,
           (jsonb_typeof(r.checks) = \'array\' AND jsonb_array_length(r.checks) > 0) AS "hasChecks",
           (EXISTS (SELECT 1 FROM "Fixture" f WHERE f."replayId" = r.id)
             OR EXISTS (SELECT 1 FROM "ReplayLogEntry" l WHERE l."replayId" = r.id)) AS "hasLog",
           (SELECT min(seq) FROM "Event" ev WHERE ev."sessionId" = r."sessionId") AS "firstSeq",
           (SELECT max(seq) FROM "Event" ev WHERE ev."sessionId" = r."sessionId") AS "lastSeq"
      FROM "Replay" r
      JOIN "Session" s ON s.id = r."sessionId"
      JOIN "Agent" a ON a.id = s."agentId"
      LEFT JOIN "Experiment" e ON e.id = r."experimentId"
     WHERE r.id = $1) x
  )\073
END
';

-- The rows a comparison reads of a session's events and of a replay's steps, each a JSON array of arrays (text) in
-- order (lib/db/replay-comparison.ts LiteTuple: BaseTuple, StepTuple), and what a run's transaction builds its
-- comparison from (replay_comparison_inputs): the replay's stamp, whether a comparison is stored, and both
-- runs' rows. Functions, so that each is planned once per connection (sent as text, the inputs' statement was
-- planned on every run: 0.7-0.9 ms on the embedded database, as long as it ran), and the one definition of those rows.
-- A model call stored without a digest has an input only when its stored input is not null (read only there).
CREATE FUNCTION "session_lite_rows"(text) RETURNS text
LANGUAGE plpgsql STABLE SET plan_cache_mode TO 'force_generic_plan' AS E'
BEGIN
  RETURN (SELECT json_agg(json_build_array(
    seq, kind, name, status, "cacheKey", error, CASE WHEN kind = \'final_output\' THEN output END,
    "outputDigest", "plainInputDigest", CASE WHEN kind = \'model_call\' THEN "inputDigest" END,
    CASE WHEN kind = \'model_call\' AND "inputDigest" IS NULL THEN input IS NOT NULL AND input <> \'null\'::jsonb
      ELSE "inputDigest" IS NOT NULL END,
    "durationMs", "inputTokens", "outputTokens", "costUsd"
  ) ORDER BY seq)::text FROM "Event" WHERE "sessionId" = $1)\073
END
';

CREATE FUNCTION "replay_step_lite_rows"(text) RETURNS text
LANGUAGE plpgsql STABLE SET plan_cache_mode TO 'force_generic_plan' AS E'
BEGIN
  RETURN (SELECT json_agg(json_build_array(
    idx, kind, name, status, "cacheKey", error, CASE WHEN kind = \'final_output\' THEN output END,
    "outputDigest", "plainInputDigest", CASE WHEN kind = \'model_call\' THEN "inputDigest" END,
    CASE WHEN kind = \'model_call\' AND "inputDigest" IS NULL THEN input IS NOT NULL AND input <> \'null\'::jsonb
      ELSE "inputDigest" IS NOT NULL END,
    (detail->>\'durationMs\')::int, source, "baseSeq", COALESCE((detail->>\'equalsBase\')::boolean, false),
    CASE WHEN jsonb_typeof(detail->\'usage\') = \'object\' THEN detail->\'usage\' END
  ) ORDER BY idx)::text FROM "ReplayStep" WHERE "replayId" = $1)\073
END
';

CREATE FUNCTION "replay_comparison_inputs"(text)
RETURNS TABLE (status text, "stepCount" int, "stepsVersion" int, "sessionId" text, "eventCount" int, stored boolean,
  base text, steps text)
LANGUAGE plpgsql STABLE SET plan_cache_mode TO 'force_generic_plan' AS E'
#variable_conflict use_column
BEGIN
  RETURN QUERY
    SELECT r.status, r."stepCount", r."stepsVersion", r."sessionId", s."eventCount",
           EXISTS (SELECT 1 FROM "ReplayComparison" c WHERE c."replayId" = r.id),
           session_lite_rows(r."sessionId"), replay_step_lite_rows(r.id)
      FROM "Replay" r JOIN "Session" s ON s.id = r."sessionId"
     WHERE r.id = $1\073
END
';

-- A worker's claim of a replay (lib/db/jobs.ts claimReplayRun): the replay claimed (queued, or running under a
-- lease that ran out), its experiment marked running, whether a cancel was asked for (replay or experiment), and,
-- when asked, the run's context, in one round trip as before, now planned once per connection. No row: not claimed.
CREATE FUNCTION "claim_replay_run"(text, text, float8, boolean)
RETURNS TABLE (attempts int, "experimentId" text, "stepCount" int, "cancelRequested" boolean, also json)
LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' AS E'
#variable_conflict use_column
DECLARE
  claimed_attempts int\073
  claimed_experiment text\073
  claimed_steps int\073
  cancel boolean\073
BEGIN
  WITH claimed AS (
    UPDATE "Replay"
       SET status = \'running\', "leaseOwner" = $2, "leaseUntil" = now() + make_interval(secs => $3),
           attempts = attempts + 1, "updatedAt" = now()
     WHERE id = $1
       AND (status = \'queued\' OR (status = \'running\' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())))
 RETURNING attempts, "experimentId", "cancelRequested", "stepCount"),
  started AS (
    UPDATE "Experiment" SET status = \'running\'
     WHERE id = (SELECT "experimentId" FROM claimed) AND status = \'pending\'
 RETURNING id)
  SELECT c.attempts, c."experimentId", c."stepCount", (c."cancelRequested" OR COALESCE(e."cancelRequested", false))
    INTO claimed_attempts, claimed_experiment, claimed_steps, cancel
    FROM claimed c LEFT JOIN "Experiment" e ON e.id = c."experimentId"\073
  IF NOT FOUND THEN
    RETURN\073
  END IF\073
  RETURN QUERY SELECT claimed_attempts, claimed_experiment, claimed_steps, cancel,
    CASE WHEN $4 THEN replay_run_context($1) END\073
END
';
