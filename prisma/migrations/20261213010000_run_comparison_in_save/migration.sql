-- A run's base, result and comparison in fewer round trips (lib/db/jobs.ts claimReplayRun,
-- lib/db/replay-writes.ts saveRunResult, lib/server/replays/comparison-store.ts storeComparisonInRun).
--
-- A step's row as a comparison reads it is one definition, replay_step_lite_row, given the row's columns: the
-- stored steps' rows use it (replay_step_lite_rows), and so does the statement that stores a fresh run's steps,
-- over what its INSERT returns (the digests are generated columns, there in RETURNING). That statement then
-- answers what the comparison is built from, where a second statement read it back. A SQL function of one
-- expression, inlined where it is called: no call per row.
--
-- A stored comparison is written by replay_comparison_write: the old one deleted (when there is one), the header
-- and a window of pairs, or a further window of pairs alone. A failure inside it is undone by its own block and
-- answered as text, so a run's transaction stores its comparison with no savepoint of its own (a SAVEPOINT is a
-- round trip): the run's result stands whatever the comparison does. Its parameters are text, cast inside that
-- block, so that a value the database refuses is caught there too.
--
-- Bodies are escape strings with each semicolon written as \073: the migration runner splits scripts at them.

CREATE FUNCTION "replay_step_lite_row"(idx int, kind text, name text, status text, "cacheKey" text, error jsonb,
  output jsonb, "outputDigest" text, "plainInputDigest" text, "inputDigest" text, input jsonb, detail jsonb,
  source text, "baseSeq" int) RETURNS json
LANGUAGE sql STABLE AS E'
  SELECT json_build_array(
    idx, kind, name, status, "cacheKey", error, CASE WHEN kind = \'final_output\' THEN output END,
    "outputDigest", "plainInputDigest", CASE WHEN kind = \'model_call\' THEN "inputDigest" END,
    CASE WHEN kind = \'model_call\' AND "inputDigest" IS NULL THEN input IS NOT NULL AND input <> \'null\'::jsonb
      ELSE "inputDigest" IS NOT NULL END,
    (detail->>\'durationMs\')::int, source, "baseSeq", COALESCE((detail->>\'equalsBase\')::boolean, false),
    CASE WHEN jsonb_typeof(detail->\'usage\') = \'object\' THEN detail->\'usage\' END)
';

CREATE OR REPLACE FUNCTION "replay_step_lite_rows"(text) RETURNS text
LANGUAGE plpgsql STABLE SET plan_cache_mode TO 'force_generic_plan' AS E'
BEGIN
  RETURN (SELECT json_agg(replay_step_lite_row(idx, kind, name, status, "cacheKey", error, output, "outputDigest",
    "plainInputDigest", "inputDigest", input, detail, source, "baseSeq") ORDER BY idx)::text
    FROM "ReplayStep" WHERE "replayId" = $1)\073
END
';

-- (replay id, whether to delete the stored one first, the header as JSON text or NULL for a further window of
-- pairs, the window of pairs as a JSON array of records): NULL when written, else the error's code and message.
CREATE FUNCTION "replay_comparison_write"(text, boolean, text, text) RETURNS text
LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' AS E'
DECLARE
  h jsonb\073
BEGIN
  BEGIN
    IF $2 THEN
      -- Its own statement: the pairs\' cascade runs at the end of the statement that deletes their header.
      DELETE FROM "ReplayComparison" WHERE "replayId" = $1\073
    END IF\073
    IF $3 IS NOT NULL THEN
      h := $3::jsonb\073
      INSERT INTO "ReplayComparison" ("replayId", "stepsKey", "pairCount", "baseCount", "branchCount", counts,
        "firstDivergence", "divergenceBranchIndex", metrics, "finalOutputDiff", "baseFinalOutput", "branchFinalOutput")
      VALUES ($1, h->>\'stepsKey\', (h->>\'pairCount\')::int, (h->>\'baseCount\')::int, (h->>\'branchCount\')::int,
        h->\'counts\', NULLIF(h->\'firstDivergence\', \'null\'::jsonb), (h->>\'divergenceBranchIndex\')::int,
        h->\'metrics\', NULLIF(h->\'finalOutputDiff\', \'null\'::jsonb), NULLIF(h->\'baseFinalOutput\', \'null\'::jsonb),
        NULLIF(h->\'branchFinalOutput\', \'null\'::jsonb))\073
    END IF\073
    INSERT INTO "ReplayComparisonPair" ("replayId", position, "pairId", type, kind, name, "baseSeq", "baseIndex",
      "branchSeq", "branchIndex", source, "inputOnly", "typeRank", "changeRank", "changesBefore")
    SELECT $1, position, "pairId", type, kind, name, "baseSeq", "baseIndex", "branchSeq", "branchIndex",
      source, "inputOnly", "typeRank", "changeRank", "changesBefore"
    FROM jsonb_to_recordset($4::jsonb) AS x(position int, "pairId" text, type text, kind text, name text,
      "baseSeq" int, "baseIndex" int, "branchSeq" int, "branchIndex" int, source text, "inputOnly" boolean,
      "typeRank" int, "changeRank" int, "changesBefore" int)\073
    RETURN NULL\073
  EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || \': \' || SQLERRM\073
  END\073
END
';

-- A worker's claim answers the base session's events too, when it asks for the run's context and the session's
-- seqs lie within one window of reads ($5: lib/db/session-reads.ts EVENT_WINDOW): a short run reads its base in
-- the claim's round trip, where it took one more. Each event is its whole row as JSON (the columns a run reads,
-- and its two digests). A longer session's are read a window at a time, as before (NULL here).
DROP FUNCTION "claim_replay_run"(text, text, float8, boolean);

CREATE FUNCTION "claim_replay_run"(text, text, float8, boolean, integer)
RETURNS TABLE (attempts int, "experimentId" text, "stepCount" int, "cancelRequested" boolean, also json, events json)
LANGUAGE plpgsql SET plan_cache_mode TO 'force_generic_plan' AS E'
#variable_conflict use_column
DECLARE
  claimed_attempts int\073
  claimed_experiment text\073
  claimed_steps int\073
  cancel boolean\073
  context json\073
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
  IF $4 THEN
    context := replay_run_context($1)\073
  END IF\073
  RETURN QUERY SELECT claimed_attempts, claimed_experiment, claimed_steps, cancel, context,
    CASE WHEN (context->>\'lastSeq\')::int - (context->>\'firstSeq\')::int < $5 THEN (
      SELECT json_agg(row_to_json(ev) ORDER BY ev.seq) FROM "Event" ev
       WHERE ev."sessionId" = context->>\'sessionId\'
         AND ev.seq BETWEEN (context->>\'firstSeq\')::int AND (context->>\'lastSeq\')::int) END\073
END
';
