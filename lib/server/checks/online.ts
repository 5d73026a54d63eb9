/**
 * Online checks: an outcome check attached to an agent (every version, or from one version on) judges every
 * session of that agent imported after it, in a job (one per import); a backfill job judges the older ones,
 * with its progress on the attachment. Verdicts are stored per session and check (lib/db/online-checks.ts);
 * a failed one is a failure of the session, so its failure signature names the check (lib/db/clusters.ts).
 * LLM-judge checks spend at most a budget a UTC day; a session past it is recorded as not judged.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { checksByIds } from "@/lib/db/checks";
import { reclusterSessions } from "@/lib/db/clusters";
import {
  anyAttachment,
  attachmentById,
  attachmentFor,
  attachmentsOf,
  backfillItems,
  backfillProgress,
  deleteAttachment,
  findAgentVersion,
  importJudgeItems,
  queueBackfill,
  releaseSpend,
  reserveSpend,
  spendDay,
  upsertAttachment,
  verdictCounts,
  writeVerdicts,
  type AttachmentRow,
  type JudgeItem,
  type VerdictWrite,
} from "@/lib/db/online-checks";
import { sessionEventsCompact } from "@/lib/db/session-reads";
import { prismaSql, sqlTransaction, type SqlTx } from "@/lib/db/sql";
import { AppError, notFound } from "@/lib/errors";
import { CheckDefinition, evaluateCheck, type JudgeExecutor } from "@/lib/replay";
import { authorize } from "../authz";
import { resolveAgent } from "../clusters/cluster-shared";
import { jobQueueFor, type CheckJob, type QueueDeps } from "../job-queue";
import { afterSessions } from "../watches/watch-jobs";
import type { Principal } from "../principal";
import { judgeFor, presentCheck } from "./counterfactual";

/** An LLM-judge check's daily budget and the price of one judge call, unless the attachment says otherwise. */
export const DEFAULT_DAILY_BUDGET_USD = 1;
export const DEFAULT_JUDGE_CALL_USD = 0.01;
/** Sessions a backfill judges per transaction (its progress moves by this much). */
export const BACKFILL_BATCH = 50;
/** Sessions per import job: a larger import is a few jobs. */
const IMPORT_JOB_SESSIONS = 1000;

const Id = z.string().min(1).max(64);
const Usd = (max: number) => z.number().finite().min(0).max(max);

const oneAgent = {
  message: "Name the agent by agentId or by agentName (one of them).",
  path: ["agentId"],
};
const hasOneAgent = (v: { agentId?: string | undefined; agentName?: string | undefined }) =>
  (v.agentId === undefined) !== (v.agentName === undefined);

const attachFields = {
  agentId: Id.optional(),
  agentName: z.string().min(1).max(200).optional(),
  /** The first agent version judged; later versions (first seen after it) are too. Absent: every version. */
  fromVersion: z.string().min(1).max(200).optional(),
  /** LLM-judge checks only: what judging may spend a UTC day, and what one judge call counts for. */
  dailyBudgetUsd: Usd(1_000_000).optional(),
  judgeCallUsd: Usd(1_000)
    .refine((v) => v > 0, "A judge call costs more than $0.")
    .optional(),
};
/** `POST /api/v1/checks/:id/attach`'s body. */
export const AttachCheckBody = z.strictObject(attachFields).refine(hasOneAgent, oneAgent);
export type AttachCheckBody = z.infer<typeof AttachCheckBody>;
/** The same with the check named (the page's form). */
export const AttachCheckInput = z.strictObject({ ...attachFields, checkId: Id }).refine(hasOneAgent, oneAgent);
export type AttachCheckInput = z.infer<typeof AttachCheckInput>;

const agentFields = { agentId: Id.optional(), agentName: z.string().min(1).max(200).optional() };
export const AgentOfCheckBody = z.strictObject(agentFields).refine(hasOneAgent, oneAgent);
export type AgentOfCheckBody = z.infer<typeof AgentOfCheckBody>;
/** A detach from the page: the check and the agent. */
export const DetachCheckInput = z.strictObject({ ...agentFields, checkId: Id }).refine(hasOneAgent, oneAgent);
export type DetachCheckInput = z.infer<typeof DetachCheckInput>;

/** A backfill of one agent's sessions, or (no agent named) of every agent the check is attached to. */
const notBothAgents = (v: { agentId?: string | undefined; agentName?: string | undefined }) =>
  v.agentId === undefined || v.agentName === undefined;
const notBoth = { message: "Name the agent by agentId or by agentName, not both.", path: ["agentId"] };
export const BackfillBody = z.strictObject(agentFields).refine(notBothAgents, notBoth);
export type BackfillBody = z.infer<typeof BackfillBody>;
/** A backfill from the page: the check, and the agent (else every attached one). */
export const StartBackfillInput = z.strictObject({ ...agentFields, checkId: Id }).refine(notBothAgents, notBoth);
export type StartBackfillInput = z.infer<typeof StartBackfillInput>;

async function checkOr404(prisma: Db, checkId: string) {
  const [row] = await checksByIds(prisma, [checkId]);
  if (!row) throw notFound("check", checkId);
  const definition = CheckDefinition.safeParse(row.definition);
  if (!definition.success)
    throw new AppError("invalid_input", `The saved check "${row.name}" no longer parses; save it again.`);
  return { row, definition: definition.data };
}

export function presentAttachment(a: AttachmentRow, kind: string) {
  const judge = kind === "llm_judge";
  return {
    id: a.id,
    checkId: a.checkId,
    agentId: a.agentId,
    agentName: a.agentName,
    fromVersion: a.fromVersion,
    dailyBudgetUsd: judge ? (a.dailyBudgetUsd ?? DEFAULT_DAILY_BUDGET_USD) : null,
    judgeCallUsd: judge ? (a.judgeCallUsd ?? DEFAULT_JUDGE_CALL_USD) : null,
    createdBy: a.createdBy,
    createdAt: a.createdAt.toISOString(),
    backfill: {
      status: a.backfillStatus,
      total: a.backfillTotal,
      done: Math.min(a.backfillDone, a.backfillTotal),
      error: a.backfillError,
      startedAt: a.backfillStarted?.toISOString() ?? null,
      finishedAt: a.backfillFinished?.toISOString() ?? null,
    },
  };
}
export type PresentedAttachment = ReturnType<typeof presentAttachment>;

/**
 * Attaches a check to an agent (or changes the attachment's version and budget): sessions imported from now on
 * are judged. 201 when made, 200 when changed. Unknown check or agent: 404; an unknown version: 400.
 */
export async function attachCheck(principal: Principal, input: AttachCheckInput, prisma: Db) {
  authorize(principal, "checks.write");
  const { row, definition } = await checkOr404(prisma, input.checkId);
  const agent = await resolveAgent(prisma, input);
  const judge = definition.kind === "llm_judge";
  if (!judge && (input.dailyBudgetUsd !== undefined || input.judgeCallUsd !== undefined))
    throw new AppError("invalid_input", `Only LLM-judge checks take a budget: "${row.name}" costs nothing to run.`, [
      { path: input.dailyBudgetUsd !== undefined ? "dailyBudgetUsd" : "judgeCallUsd", message: "only for llm_judge" },
    ]);
  let fromVersionId: string | null = null;
  if (input.fromVersion !== undefined) {
    const version = await findAgentVersion(prisma, agent.id, input.fromVersion);
    if (!version)
      throw new AppError("invalid_input", `Agent "${agent.name}" has no version "${input.fromVersion}".`, [
        { path: "fromVersion", message: "unknown version of this agent" },
      ]);
    fromVersionId = version.id;
  }
  const { id, created } = await upsertAttachment(prisma, {
    checkId: row.id,
    agentId: agent.id,
    fromVersionId,
    dailyBudgetUsd: judge ? (input.dailyBudgetUsd ?? DEFAULT_DAILY_BUDGET_USD) : null,
    judgeCallUsd: judge ? (input.judgeCallUsd ?? DEFAULT_JUDGE_CALL_USD) : null,
    createdBy: principal.name,
  });
  const attachment = await attachmentById(prisma, id);
  return { created, attachment: presentAttachment(attachment!, definition.kind) };
}

/** Detaches a check from an agent: no session is judged by it from now on; its verdicts stay. */
export async function detachCheck(principal: Principal, input: DetachCheckInput, prisma: Db) {
  authorize(principal, "checks.write");
  const { row } = await checkOr404(prisma, input.checkId);
  const agent = await resolveAgent(prisma, input);
  if (!(await deleteAttachment(prisma, row.id, agent.id)))
    throw new AppError("not_found", `The check "${row.name}" is not attached to agent "${agent.name}".`, [
      { path: input.agentId !== undefined ? "agentId" : "agentName", message: "not attached" },
    ]);
  return { detached: { checkId: row.id, agentId: agent.id } };
}

/**
 * A check as the online-checks page and `GET /api/v1/checks/:id` show it: the agents it is attached to, each
 * with its verdict counts, its backfill's progress, and (LLM judge) today's spend and sessions not judged.
 */
export async function getOnlineCheck(principal: Principal, input: { checkId: string }, prisma: Db) {
  authorize(principal, "checks.read");
  const { row, definition } = await checkOr404(prisma, input.checkId);
  const day = spendDay();
  const [attachments, counts] = await Promise.all([attachmentsOf(prisma, row.id), verdictCounts(prisma, row.id, day)]);
  const countsOf = (agentId: string) => {
    const out = { pass: 0, fail: 0, check_error: 0, over_budget: 0 } as Record<string, number>;
    for (const c of counts.counts) if (c.agentId === agentId) out[c.outcome] = (out[c.outcome] ?? 0) + c.sessions;
    return out as { pass: number; fail: number; check_error: number; over_budget: number };
  };
  return {
    check: presentCheck(row),
    kind: definition.kind,
    day,
    attachments: attachments.map((a) => {
      const presented = presentAttachment(a, definition.kind);
      const spend = counts.spendToday.get(a.agentId) ?? { spentUsd: 0, calls: 0 };
      return {
        ...presented,
        verdicts: countsOf(a.agentId),
        today:
          definition.kind === "llm_judge"
            ? {
                spentUsd: Math.round(spend.spentUsd * 1e6) / 1e6,
                judgeCalls: spend.calls,
                notJudgedOverBudget: counts.overBudgetToday.get(a.agentId) ?? 0,
                overBudget: spend.spentUsd + (presented.judgeCallUsd ?? 0) > (presented.dailyBudgetUsd ?? 0) + 1e-9,
              }
            : null,
      };
    }),
    /** Verdicts given to sessions of agents it is no longer attached to. */
    detachedVerdicts: counts.counts
      .filter((c) => !attachments.some((a) => a.agentId === c.agentId))
      .reduce((n, c) => n + c.sessions, 0),
  };
}
export type OnlineCheck = Awaited<ReturnType<typeof getOnlineCheck>>;

/**
 * Starts a backfill: the attachment's sessions stored by now that have no pass or fail for their current events
 * are judged in a job, a batch at a time, with the progress readable on the check. One agent's, or every
 * attached agent's. An attachment whose backfill is queued or running already is left as it is (`started: false`).
 */
export async function startBackfill(principal: Principal, input: StartBackfillInput, prisma: Db, deps: QueueDeps = {}) {
  authorize(principal, "checks.write");
  const { row, definition } = await checkOr404(prisma, input.checkId);
  let attachments: AttachmentRow[];
  if (input.agentId !== undefined || input.agentName !== undefined) {
    const agent = await resolveAgent(prisma, input);
    const one = await attachmentFor(prisma, row.id, agent.id);
    if (!one)
      throw new AppError(
        "wrong_state",
        `The check "${row.name}" is not attached to agent "${agent.name}": attach it first, then backfill.`,
        [{ path: input.agentId !== undefined ? "agentId" : "agentName", message: "not attached" }],
      );
    attachments = [one];
  } else {
    attachments = await attachmentsOf(prisma, row.id);
    if (attachments.length === 0)
      throw new AppError("wrong_state", `The check "${row.name}" is not attached to any agent: attach it first.`);
  }
  const started: string[] = [];
  for (const a of attachments) {
    const total = await sqlTransaction(prisma, (sql) => queueBackfill(sql, a.id));
    if (total !== null) started.push(a.id);
  }
  await queueChecks(
    prisma,
    started.map((attachmentId) => ({ kind: "backfill", attachmentId })),
    deps,
  );
  const after = await attachmentsOf(prisma, row.id);
  return {
    backfills: after
      .filter((a) => attachments.some((b) => b.id === a.id))
      .map((a) => ({
        ...presentAttachment(a, definition.kind).backfill,
        agentId: a.agentId,
        agentName: a.agentName,
        started: started.includes(a.id),
      })),
  };
}

/** Each attachment's backfill progress. */
export async function backfillStatus(principal: Principal, input: { checkId: string }, prisma: Db) {
  authorize(principal, "checks.read");
  const { row, definition } = await checkOr404(prisma, input.checkId);
  const attachments = await attachmentsOf(prisma, row.id);
  return {
    backfills: attachments.map((a) => ({
      ...presentAttachment(a, definition.kind).backfill,
      agentId: a.agentId,
      agentName: a.agentName,
    })),
  };
}

// ---- The jobs ---------------------------------------------------------------------------

/** Puts check work on the queue, or (no queue plugged in: tests, scripts) runs it in this call. */
async function queueChecks(prisma: Db, jobs: CheckJob[], deps: QueueDeps = {}): Promise<void> {
  if (jobs.length === 0) return;
  const queue = jobQueueFor(deps);
  if (queue?.enqueueChecks) await queue.enqueueChecks(jobs);
  else for (const job of jobs) await runCheckJob(prisma, job);
}

/**
 * After an import: one job judges its new sessions by the checks attached to their agents. Costs the import one
 * small read when no check is attached anywhere, and one enqueue (per 1,000 sessions) when one is.
 */
export async function afterImport(prisma: Db, sessionIds: readonly string[], deps: QueueDeps = {}): Promise<void> {
  if (sessionIds.length === 0) return;
  // With no check to judge them, the watches of their agents are evaluated now; else once the verdicts are in.
  if (!(await anyAttachment(prisma))) return afterSessions(prisma, sessionIds, deps);
  const jobs: CheckJob[] = [];
  for (let k = 0; k < sessionIds.length; k += IMPORT_JOB_SESSIONS)
    jobs.push({ kind: "import", sessionIds: sessionIds.slice(k, k + IMPORT_JOB_SESSIONS) });
  await queueChecks(prisma, jobs, deps);
}

/** Runs one job: judges an import's sessions, or goes through a backfill. */
export async function runCheckJob(prisma: Db, job: CheckJob, judge?: JudgeExecutor): Promise<void> {
  if (job.kind === "import") {
    const items = await importJudgeItems(prismaSql(prisma), job.sessionIds);
    const verdicts = await judgeItems(prisma, items, judge);
    await sqlTransaction(prisma, (sql) => storeVerdicts(sql, verdicts, sessionsOf(items)));
    await afterSessions(prisma, job.sessionIds);
    return;
  }
  await runBackfill(prisma, job.attachmentId, judge);
}

const sessionsOf = (items: readonly JudgeItem[]) => [...new Set(items.map((i) => i.sessionId))];

/** Stores verdicts and puts their sessions in the clusters their failed checks now make (one transaction). */
async function storeVerdicts(sql: SqlTx, verdicts: readonly VerdictWrite[], sessionIds: readonly string[]) {
  await writeVerdicts(sql, verdicts);
  await reclusterSessions(sql, sessionIds);
}

/** Goes through a backfill from its cursor, a batch per transaction (verdicts and progress together). */
async function runBackfill(prisma: Db, attachmentId: string, judge?: JudgeExecutor): Promise<void> {
  const attachment = await attachmentById(prisma, attachmentId);
  if (!attachment || attachment.backfillStatus === "completed" || attachment.backfillStatus === "none") return;
  let cursor = attachment.backfillCursor;
  let done = attachment.backfillDone;
  await backfillProgress(prismaSql(prisma), attachmentId, { status: "running" });
  try {
    for (;;) {
      const items = await backfillItems(prismaSql(prisma), attachmentId, cursor, BACKFILL_BATCH);
      if (items.length === 0) break;
      const verdicts = await judgeItems(prisma, items, judge);
      const next = items.at(-1)!.sessionId;
      const count = items.length;
      await sqlTransaction(prisma, async (sql) => {
        await storeVerdicts(sql, verdicts, sessionsOf(items));
        await backfillProgress(sql, attachmentId, { status: "running", done: done + count, cursor: next });
      });
      done += count;
      cursor = next;
      if (items.length < BACKFILL_BATCH) break;
    }
    await backfillProgress(prismaSql(prisma), attachmentId, { status: "completed" });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await backfillProgress(prismaSql(prisma), attachmentId, { status: "failed", error: message.slice(0, 1000) }).catch(
      () => undefined,
    );
    throw error;
  }
}

const usd = (n: number) => `$${n.toFixed(4).replace(/0+$/, "").replace(/\.$/, "")}`;

/**
 * Judges each (session, check): skipped when it has a pass or fail for the session's current events (judging
 * again is idempotent); an LLM judge runs only within its day's budget, reserved before the call (a call that
 * never reached the model gives its reservation back), else the session is recorded as not judged.
 */
async function judgeItems(prisma: Db, items: readonly JudgeItem[], judge?: JudgeExecutor): Promise<VerdictWrite[]> {
  const out: VerdictWrite[] = [];
  const events = new Map<string, Awaited<ReturnType<typeof sessionEventsCompact>>>();
  for (const item of items) {
    const final = item.verdictOutcome === "pass" || item.verdictOutcome === "fail";
    if (final && item.verdictEventCount === item.eventCount) continue;
    const head = {
      sessionId: item.sessionId,
      checkId: item.checkId,
      agentId: item.agentId,
      agentVersionId: item.agentVersionId,
      eventCount: item.eventCount,
    };
    const definition = CheckDefinition.safeParse(item.definition);
    if (!definition.success) {
      out.push({
        ...head,
        outcome: "check_error",
        reason: "The saved check no longer parses.",
        judge: null,
        costUsd: 0,
      });
      continue;
    }
    let steps = events.get(item.sessionId);
    if (!steps) {
      steps = await sessionEventsCompact(prisma, item.sessionId);
      events.set(item.sessionId, steps);
    }
    const check = { id: item.checkId, name: item.checkName, definition: definition.data };
    if (definition.data.kind !== "llm_judge") {
      const v = await evaluateCheck(check, { steps });
      out.push({ ...head, outcome: v.outcome, reason: v.reason, judge: null, costUsd: 0 });
      continue;
    }
    const budget = item.dailyBudgetUsd ?? DEFAULT_DAILY_BUDGET_USD;
    const price = item.judgeCallUsd ?? DEFAULT_JUDGE_CALL_USD;
    const key = { checkId: item.checkId, agentId: item.agentId, day: spendDay() };
    if (!(await reserveSpend(prismaSql(prisma), key, price, budget))) {
      out.push({
        ...head,
        outcome: "over_budget",
        reason: `Not judged: over budget. Judging by this check may spend ${usd(budget)} a day for this agent (${usd(price)} a call), and today's is spent.`,
        judge: null,
        costUsd: 0,
      });
      continue;
    }
    const run = judge ?? judgeFor(prisma, null);
    let reached = true;
    const counted: JudgeExecutor = async (request) => {
      try {
        return await run(request);
      } catch (error) {
        reached = false;
        throw error;
      }
    };
    const v = await evaluateCheck(check, { steps }, counted);
    if (!reached) await releaseSpend(prismaSql(prisma), key, price);
    out.push({
      ...head,
      outcome: v.outcome,
      reason: v.reason,
      judge: v.judge ?? null,
      costUsd: reached ? price : 0,
    });
  }
  return out;
}
