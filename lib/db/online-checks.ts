// ---------------------------------------------------------------------------
// Online checks in the database: outcome checks attached to agents, the
// verdicts they gave per session (one row per session and check, written
// again only when the session changed or was not judged), the backfill's
// progress, and what LLM-judge checks spent per UTC day (reserved before a
// call, so concurrent jobs never spend past a budget).
// ---------------------------------------------------------------------------
import type { DbClient } from "./client";
import type { SqlTx } from "./sql";

export type VerdictOutcome = "pass" | "fail" | "check_error" | "over_budget";

export type AttachmentRow = {
  id: string;
  checkId: string;
  agentId: string;
  agentName: string;
  fromVersionId: string | null;
  fromVersion: string | null;
  dailyBudgetUsd: number | null;
  judgeCallUsd: number | null;
  createdBy: string | null;
  createdAt: Date;
  backfillStatus: string;
  backfillTotal: number;
  backfillDone: number;
  backfillCursor: string | null;
  backfillError: string | null;
  backfillStarted: Date | null;
  backfillFinished: Date | null;
};

const attachmentSelect = {
  id: true,
  checkId: true,
  agentId: true,
  fromVersionId: true,
  dailyBudgetUsd: true,
  judgeCallUsd: true,
  createdBy: true,
  createdAt: true,
  backfillStatus: true,
  backfillTotal: true,
  backfillDone: true,
  backfillCursor: true,
  backfillError: true,
  backfillStarted: true,
  backfillFinished: true,
  agent: { select: { name: true } },
} as const;

async function withVersions(
  client: DbClient,
  rows: (Omit<AttachmentRow, "agentName" | "fromVersion"> & { agent: { name: string } })[],
): Promise<AttachmentRow[]> {
  const ids = rows.flatMap((r) => (r.fromVersionId ? [r.fromVersionId] : []));
  const versions = new Map(
    ids.length === 0
      ? []
      : (await client.agentVersion.findMany({ where: { id: { in: ids } }, select: { id: true, version: true } })).map(
          (v) => [v.id, v.version],
        ),
  );
  return rows.map(({ agent, ...r }) => ({
    ...r,
    agentName: agent.name,
    fromVersion: r.fromVersionId ? (versions.get(r.fromVersionId) ?? null) : null,
  }));
}

/** A check's attachments, by agent name. */
export async function attachmentsOf(client: DbClient, checkId: string): Promise<AttachmentRow[]> {
  const rows = await client.checkAttachment.findMany({
    where: { checkId },
    orderBy: [{ agent: { name: "asc" } }],
    select: attachmentSelect,
  });
  return withVersions(client, rows);
}

export async function attachmentById(client: DbClient, id: string): Promise<AttachmentRow | null> {
  const row = await client.checkAttachment.findUnique({ where: { id }, select: attachmentSelect });
  return row ? ((await withVersions(client, [row]))[0] ?? null) : null;
}

export async function attachmentFor(client: DbClient, checkId: string, agentId: string): Promise<AttachmentRow | null> {
  const row = await client.checkAttachment.findUnique({
    where: { checkId_agentId: { checkId, agentId } },
    select: attachmentSelect,
  });
  return row ? ((await withVersions(client, [row]))[0] ?? null) : null;
}

/** An agent's version by its version string; null when the agent has none such. */
export function findAgentVersion(client: DbClient, agentId: string, version: string) {
  return client.agentVersion.findUnique({
    where: { agentId_version: { agentId, version } },
    select: { id: true, version: true },
  });
}

/**
 * Attaches a check to an agent, or changes an attachment's version and budget (its start, and so which sessions
 * count as imported after it, stays).
 */
export async function upsertAttachment(
  client: DbClient,
  values: {
    checkId: string;
    agentId: string;
    fromVersionId: string | null;
    dailyBudgetUsd: number | null;
    judgeCallUsd: number | null;
    createdBy: string;
  },
): Promise<{ id: string; created: boolean }> {
  const before = await client.checkAttachment.findUnique({
    where: { checkId_agentId: { checkId: values.checkId, agentId: values.agentId } },
    select: { id: true },
  });
  const row = await client.checkAttachment.upsert({
    where: { checkId_agentId: { checkId: values.checkId, agentId: values.agentId } },
    create: { ...values },
    update: {
      fromVersionId: values.fromVersionId,
      dailyBudgetUsd: values.dailyBudgetUsd,
      judgeCallUsd: values.judgeCallUsd,
    },
    select: { id: true },
  });
  return { id: row.id, created: before === null };
}

/** Detaches; the verdicts already given stay. Whether there was an attachment. */
export async function deleteAttachment(client: DbClient, checkId: string, agentId: string): Promise<boolean> {
  const { count } = await client.checkAttachment.deleteMany({ where: { checkId, agentId } });
  return count > 0;
}

/** Whether any check is attached to any agent (an import enqueues nothing otherwise). */
export async function anyAttachment(client: DbClient): Promise<boolean> {
  return (await client.checkAttachment.findFirst({ select: { id: true } })) !== null;
}

/** A session to judge by an attached check, with the verdict it has (if any). */
export type JudgeItem = {
  sessionId: string;
  agentId: string;
  agentVersionId: string;
  eventCount: number;
  attachmentId: string;
  checkId: string;
  checkName: string;
  definition: unknown;
  dailyBudgetUsd: number | null;
  judgeCallUsd: number | null;
  /** The stored verdict's outcome and the event count it was given at; null when none. */
  verdictOutcome: string | null;
  verdictEventCount: number | null;
};

/**
 * Which of `sessionIds` each attachment judges online: sessions of its agent imported at or after it was made,
 * of its version or one created after it (or any), that are neither replays nor superseded.
 */
export async function importJudgeItems(sql: SqlTx, sessionIds: readonly string[]): Promise<JudgeItem[]> {
  if (sessionIds.length === 0) return [];
  return sql.query<JudgeItem[]>`
    SELECT s.id AS "sessionId", s."agentId", s."agentVersionId", s."eventCount",
      a.id AS "attachmentId", c.id AS "checkId", c.name AS "checkName", c.definition,
      a."dailyBudgetUsd", a."judgeCallUsd", v.outcome AS "verdictOutcome", v."eventCount" AS "verdictEventCount"
    FROM "Session" s
    JOIN "CheckAttachment" a ON a."agentId" = s."agentId" AND s."createdAt" >= a."createdAt"
    JOIN "Check" c ON c.id = a."checkId"
    JOIN "AgentVersion" sv ON sv.id = s."agentVersionId"
    LEFT JOIN "AgentVersion" fv ON fv.id = a."fromVersionId"
    LEFT JOIN "SessionCheckVerdict" v ON v."sessionId" = s.id AND v."checkId" = c.id
    WHERE s.id = ANY(${[...sessionIds]}::text[]) AND NOT s."isReplay" AND NOT (s.metadata ? 'supersededBy')
      AND (a."fromVersionId" IS NULL OR (sv."createdAt", sv.id) >= (fv."createdAt", fv.id))
    ORDER BY s.id, c.name`;
}

/**
 * What a backfill goes through: the attachment's agent and versions, stored by the time it started, without a
 * pass or fail for their current events (never judged, judged before they grew, over budget, a check error).
 */
/** The next `limit` sessions a backfill goes through, after `after` (a session id), in id order. */
export function backfillItems(sql: SqlTx, attachmentId: string, after: string | null, limit: number) {
  return sql.query<JudgeItem[]>`
    SELECT s.id AS "sessionId", s."agentId", s."agentVersionId", s."eventCount",
      a.id AS "attachmentId", c.id AS "checkId", c.name AS "checkName", c.definition,
      a."dailyBudgetUsd", a."judgeCallUsd", v.outcome AS "verdictOutcome", v."eventCount" AS "verdictEventCount"
    FROM "CheckAttachment" a
    JOIN "Check" c ON c.id = a."checkId"
    JOIN "Session" s ON s."agentId" = a."agentId" AND s."createdAt" <= a."backfillStarted"
    JOIN "AgentVersion" sv ON sv.id = s."agentVersionId"
    LEFT JOIN "AgentVersion" fv ON fv.id = a."fromVersionId"
    LEFT JOIN "SessionCheckVerdict" v ON v."sessionId" = s.id AND v."checkId" = c.id
    WHERE a.id = ${attachmentId}::text AND NOT s."isReplay" AND NOT (s.metadata ? 'supersededBy')
      AND (a."fromVersionId" IS NULL OR (sv."createdAt", sv.id) >= (fv."createdAt", fv.id))
      AND (v."sessionId" IS NULL OR v.outcome NOT IN ('pass', 'fail') OR v."eventCount" <> s."eventCount")
      AND s.id > ${after ?? ""}::text
    ORDER BY s.id
    LIMIT ${limit}::int`;
}

/** How many sessions a backfill started now goes through. */
export async function countBackfill(sql: SqlTx, attachmentId: string): Promise<number> {
  const [row] = await sql.query<[{ n: bigint | number }]>`
    SELECT count(*) AS n
    FROM "CheckAttachment" a
    JOIN "Session" s ON s."agentId" = a."agentId" AND s."createdAt" <= a."backfillStarted"
    JOIN "AgentVersion" sv ON sv.id = s."agentVersionId"
    LEFT JOIN "AgentVersion" fv ON fv.id = a."fromVersionId"
    LEFT JOIN "SessionCheckVerdict" v ON v."sessionId" = s.id AND v."checkId" = a."checkId"
    WHERE a.id = ${attachmentId}::text AND NOT s."isReplay" AND NOT (s.metadata ? 'supersededBy')
      AND (a."fromVersionId" IS NULL OR (sv."createdAt", sv.id) >= (fv."createdAt", fv.id))
      AND (v."sessionId" IS NULL OR v.outcome NOT IN ('pass', 'fail') OR v."eventCount" <> s."eventCount")`;
  return Number(row.n);
}

/**
 * Queues a backfill of the attachment from the start, counting what it has to go through at this moment;
 * null when one is queued or running already. One transaction, so the count and the start agree.
 */
export async function queueBackfill(sql: SqlTx, attachmentId: string): Promise<number | null> {
  const rows = await sql.query<{ id: string }[]>`
    UPDATE "CheckAttachment" SET "backfillStatus" = 'queued', "backfillDone" = 0, "backfillCursor" = NULL,
      "backfillError" = NULL, "backfillStarted" = CURRENT_TIMESTAMP, "backfillFinished" = NULL
    WHERE id = ${attachmentId}::text AND "backfillStatus" NOT IN ('queued', 'running')
    RETURNING id`;
  if (rows.length !== 1) return null;
  const total = await countBackfill(sql, attachmentId);
  await sql.query`UPDATE "CheckAttachment" SET "backfillTotal" = ${total}::int WHERE id = ${attachmentId}::text`;
  return total;
}

export async function backfillProgress(
  sql: SqlTx,
  attachmentId: string,
  values: { status: "running" | "completed" | "failed"; done?: number; cursor?: string | null; error?: string | null },
): Promise<void> {
  const finished = values.status === "running" ? null : new Date().toISOString();
  await sql.query`
    UPDATE "CheckAttachment" SET "backfillStatus" = ${values.status}::text,
      "backfillDone" = coalesce(${values.done ?? null}::int, "backfillDone"),
      "backfillCursor" = CASE WHEN ${values.cursor !== undefined}::boolean THEN ${values.cursor ?? null}::text ELSE "backfillCursor" END,
      "backfillError" = ${values.error ?? null}::text,
      "backfillFinished" = ${finished}::timestamptz
    WHERE id = ${attachmentId}::text`;
}

/** Backfills queued or running (a stopped embedded server resumes them at start). */
export async function unfinishedBackfills(client: DbClient): Promise<{ id: string; createdBy: string | null }[]> {
  return client.checkAttachment.findMany({
    where: { backfillStatus: { in: ["queued", "running"] } },
    select: { id: true, createdBy: true },
    take: 1000,
  });
}

export type VerdictWrite = {
  sessionId: string;
  checkId: string;
  agentId: string;
  agentVersionId: string;
  outcome: VerdictOutcome;
  reason: string;
  judge: unknown;
  costUsd: number;
  eventCount: number;
};

/**
 * Stores verdicts (one statement): a (session, check) judged again replaces its row. Rows go in the order of the
 * verdict counts their trigger updates (agent, check, version, day), so two judging jobs at once lock the count
 * rows they share in the same order.
 */
export async function writeVerdicts(sql: SqlTx, verdicts: readonly VerdictWrite[]): Promise<void> {
  if (verdicts.length === 0) return;
  await sql.query`
    INSERT INTO "SessionCheckVerdict" ("sessionId", "checkId", "agentId", "agentVersionId", outcome, reason, judge,
      "costUsd", "eventCount", "judgedAt")
    SELECT x."sessionId", x."checkId", x."agentId", x."agentVersionId", x.outcome, x.reason, x.judge, x."costUsd",
      x."eventCount", CURRENT_TIMESTAMP
    FROM jsonb_to_recordset(${JSON.stringify(verdicts)}::jsonb)
      AS x("sessionId" text, "checkId" text, "agentId" text, "agentVersionId" text, outcome text, reason text,
           judge jsonb, "costUsd" float8, "eventCount" int)
    LEFT JOIN "Session" s ON s.id = x."sessionId"
    ORDER BY x."agentId", x."checkId", x."agentVersionId",
      (coalesce(s."startedAt", s."createdAt") AT TIME ZONE 'UTC')::date, x."sessionId"
    ON CONFLICT ("sessionId", "checkId") DO UPDATE SET
      "agentVersionId" = EXCLUDED."agentVersionId", outcome = EXCLUDED.outcome, reason = EXCLUDED.reason,
      judge = EXCLUDED.judge, "costUsd" = EXCLUDED."costUsd", "eventCount" = EXCLUDED."eventCount",
      "judgedAt" = EXCLUDED."judgedAt"`;
}

/** The UTC day a spend counts against. */
export const spendDay = (at = new Date()) => at.toISOString().slice(0, 10);

/**
 * Reserves `price` of an LLM-judge check's budget for `day`: true when the day's spend stays within `budget`
 * with it (and it is counted), false when it would not (nothing counted). One statement per attempt, so two
 * jobs at once never both take the last of a budget.
 */
export async function reserveSpend(
  sql: SqlTx,
  key: { checkId: string; agentId: string; day: string },
  price: number,
  budget: number,
): Promise<boolean> {
  await sql.query`
    INSERT INTO "CheckSpend" ("checkId", "agentId", day) VALUES (${key.checkId}::text, ${key.agentId}::text, ${key.day}::text)
    ON CONFLICT DO NOTHING`;
  const rows = await sql.query<{ calls: number }[]>`
    UPDATE "CheckSpend" SET "spentUsd" = "spentUsd" + ${price}::float8, calls = calls + 1
    WHERE "checkId" = ${key.checkId}::text AND "agentId" = ${key.agentId}::text AND day = ${key.day}::text
      AND "spentUsd" + ${price}::float8 <= ${budget}::float8 + 1e-9
    RETURNING calls`;
  return rows.length === 1;
}

/** Gives back a reservation whose call never reached the model. */
export async function releaseSpend(
  sql: SqlTx,
  key: { checkId: string; agentId: string; day: string },
  price: number,
): Promise<void> {
  await sql.query`
    UPDATE "CheckSpend" SET "spentUsd" = greatest(0, "spentUsd" - ${price}::float8), calls = greatest(0, calls - 1)
    WHERE "checkId" = ${key.checkId}::text AND "agentId" = ${key.agentId}::text AND day = ${key.day}::text`;
}

/** A check's verdict counts per agent and outcome, and today's over-budget count and spend per agent. */
export async function verdictCounts(client: DbClient, checkId: string, day: string) {
  const [counts, today, spend] = await Promise.all([
    client.sessionCheckVerdict.groupBy({
      by: ["agentId", "outcome"],
      where: { checkId },
      _count: { _all: true },
      orderBy: [{ agentId: "asc" }, { outcome: "asc" }],
    }),
    client.sessionCheckVerdict.groupBy({
      by: ["agentId"],
      where: { checkId, outcome: "over_budget", judgedAt: { gte: new Date(`${day}T00:00:00.000Z`) } },
      _count: { _all: true },
      orderBy: [{ agentId: "asc" }],
    }),
    client.checkSpend.findMany({ where: { checkId, day }, select: { agentId: true, spentUsd: true, calls: true } }),
  ]);
  return {
    counts: counts.map((c) => ({ agentId: c.agentId, outcome: c.outcome, sessions: c._count._all })),
    overBudgetToday: new Map(today.map((t) => [t.agentId, t._count._all])),
    spendToday: new Map(spend.map((s) => [s.agentId, { spentUsd: s.spentUsd, calls: s.calls }])),
  };
}

/** One session's verdict by one check. */
export function sessionVerdict(client: DbClient, sessionId: string, checkId: string) {
  return client.sessionCheckVerdict.findUnique({ where: { sessionId_checkId: { sessionId, checkId } } });
}

/**
 * Stored verdicts' pass and fail counts per check and agent version, and per check and day (UTC), for regressions:
 * read from the counts the database keeps (CheckVerdictCount, migration check_verdict_counts), one row per check,
 * version and day whatever the number of verdicts. A pass or fail verdict is counted whatever its session.
 * `days: false` leaves out the per-day rows (a regression watch flags versions only).
 */
export async function checkPassCounts(client: DbClient, agentId: string, { days = true } = {}) {
  const byVersion = await client.$queryRaw<
    {
      checkId: string;
      name: string;
      agentVersionId: string;
      version: string;
      firstSeen: Date;
      passed: bigint;
      failed: bigint;
    }[]
  >`
    SELECT n."checkId", c.name, n."agentVersionId", av.version, min(n."firstSeen") AS "firstSeen",
      sum(n.passed) AS passed, sum(n.failed) AS failed
    FROM "CheckVerdictCount" n
    JOIN "Check" c ON c.id = n."checkId"
    JOIN "AgentVersion" av ON av.id = n."agentVersionId"
    WHERE n."agentId" = ${agentId} AND n.passed + n.failed > 0
    GROUP BY 1, 2, 3, 4 ORDER BY 2, 5, 4`;
  const byDay = days
    ? await client.$queryRaw<{ checkId: string; day: string; passed: bigint; failed: bigint }[]>`
    SELECT "checkId", to_char(day, 'YYYY-MM-DD') AS day, sum(passed) AS passed, sum(failed) AS failed
    FROM "CheckVerdictCount"
    WHERE "agentId" = ${agentId} AND passed + failed > 0
    GROUP BY 1, 2 ORDER BY 2, 1`
    : [];
  return {
    byVersion: byVersion.map((r) => ({ ...r, passed: Number(r.passed), failed: Number(r.failed) })),
    byDay: byDay.map((r) => ({ ...r, passed: Number(r.passed), failed: Number(r.failed) })),
  };
}
