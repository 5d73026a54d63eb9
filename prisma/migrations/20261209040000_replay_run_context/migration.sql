-- What a run needs of its replay row (lib/db/replay-save.ts replayRunContext), as a function: one plan per
-- connection (as the OTLP window functions). Sent as text, the query (three joins and six subqueries) was planned
-- again for every run: on the embedded database that planning took about 1.3 ms, six times the query's own
-- execution and the largest part of a short replay's database time. Planned once, generic (the replay id
-- is the only argument, and every read is by a key). Null when there is no such replay.
CREATE FUNCTION "replay_run_context"(text) RETURNS json
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan AS $$
  SELECT row_to_json(x) FROM (
    SELECT r.id, r."sessionId", r."policySnapshot", r.edits, r."createdBy", r."modelEndpointId",
           e.id AS "experimentId", e."agentVersionId" AS "experimentAgentVersionId", s."agentId", a.adapter,
           (SELECT COALESCE(json_agg(json_build_array(t.name, t."sideEffect", EXISTS (
              SELECT 1 FROM "ToolEndpoint" te WHERE te."toolName" = t.name AND te."readOnly"))), '[]'::json)
              FROM "Tool" t WHERE t."agentId" = s."agentId") AS tools,
           (jsonb_typeof(r.checks) = 'array' AND jsonb_array_length(r.checks) > 0) AS "hasChecks",
           (EXISTS (SELECT 1 FROM "Fixture" f WHERE f."replayId" = r.id)
             OR EXISTS (SELECT 1 FROM "ReplayLogEntry" l WHERE l."replayId" = r.id)) AS "hasLog",
           (SELECT min(seq) FROM "Event" ev WHERE ev."sessionId" = r."sessionId") AS "firstSeq",
           (SELECT max(seq) FROM "Event" ev WHERE ev."sessionId" = r."sessionId") AS "lastSeq"
      FROM "Replay" r
      JOIN "Session" s ON s.id = r."sessionId"
      JOIN "Agent" a ON a.id = s."agentId"
      LEFT JOIN "Experiment" e ON e.id = r."experimentId"
     WHERE r.id = $1) x
$$;
