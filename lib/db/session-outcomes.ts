import { sessionOutcome, type OutcomeStep } from "@/lib/sessions/outcome";
import type { DbClient } from "./client";
import { prismaSql, type SqlTx } from "./sql";

// ---------------------------------------------------------------------------
// A session's outcome worked out from what is stored (the rule is
// lib/sessions/outcome.ts): for sessions the trace ingest writes a window at a
// time, and for rows stored before the column existed.
// ---------------------------------------------------------------------------

/**
 * The steps the outcome rule can turn on, read in one pass: every step that did not complete, the
 * last step, the last final answer, and per tool name its last completed call. On these few rows the
 * rule gives what it gives on all of them (a failure is recovered exactly when its tool's last
 * completed call comes after it), without bringing every event of a long session back.
 */
async function outcomeSteps(sql: SqlTx, sessionId: string): Promise<{ metadata: unknown; steps: OutcomeStep[] }> {
  const [row] = await sql.query<[{ metadata: unknown; steps: OutcomeStep[] | null } | undefined]>`
    SELECT s.metadata, (
      SELECT json_agg(json_build_object('seq', seq, 'kind', kind, 'name', name, 'status', status, 'error', error) ORDER BY seq)
      FROM (
        SELECT seq, kind, name, status, error,
          max(seq) OVER () AS last_seq,
          max(seq) FILTER (WHERE kind = 'final_output') OVER () AS last_final,
          max(seq) FILTER (WHERE kind = 'tool_call' AND status = 'completed') OVER (PARTITION BY name) AS last_ok
        FROM "Event" WHERE "sessionId" = ${sessionId}::text
      ) e
      WHERE status <> 'completed' OR seq = last_seq OR seq = last_final OR (kind = 'tool_call' AND seq = last_ok)
    ) AS steps
    FROM "Session" s WHERE s.id = ${sessionId}::text`;
  return { metadata: row?.metadata ?? {}, steps: row?.steps ?? [] };
}

/** Works out a stored session's outcome again and stores it. */
export async function refreshOutcome(sql: SqlTx, sessionId: string): Promise<void> {
  const { metadata, steps } = await outcomeSteps(sql, sessionId);
  const o = sessionOutcome({ metadata, events: steps });
  await sql.query`
    UPDATE "Session" SET outcome = ${o.outcome}::text, "outcomeReason" = ${o.reason}::text, "outcomeSeq" = ${o.seq}::int
    WHERE id = ${sessionId}::text`;
}

/** Sessions stored before outcomes were: each worked out once (start-up calls this); how many. */
export async function backfillOutcomes(client: DbClient, batch = 200): Promise<number> {
  const sql = prismaSql(client);
  let done = 0;
  for (;;) {
    const rows = await sql.query<{ id: string }[]>`
      SELECT id FROM "Session" WHERE outcome IS NULL ORDER BY id LIMIT ${batch}::int`;
    for (const { id } of rows) await refreshOutcome(sql, id);
    done += rows.length;
    if (rows.length < batch) return done;
  }
}

/** How many runs failed (their recording ended on an error, or their outcome failed), and the one to start with. */
export async function failedRunsLead(client: DbClient): Promise<{
  count: number;
  first: { id: string; title: string | null; outcomeReason: string | null; outcomeSeq: number | null } | null;
}> {
  const where = { isReplay: false, OR: [{ status: "failed" }, { outcome: "failed" }] };
  const [count, first] = await Promise.all([
    client.session.count({ where }),
    // The most recent run by when it ran (then by import); a failed outcome has a reason and a step to point at.
    client.session.findFirst({
      where: { isReplay: false, outcome: "failed" },
      orderBy: [{ startedAt: { sort: "desc", nulls: "last" } }, { createdAt: "desc" }, { id: "desc" }],
      select: { id: true, title: true, outcomeReason: true, outcomeSeq: true },
    }),
  ]);
  return { count, first };
}
