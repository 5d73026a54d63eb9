/**
 * Leases on replays (the rows the job workers in lib/jobs run). A worker claims
 * a replay before running it and holds it with a heartbeat; a lease past its
 * time means the worker is gone (killed, machine lost), and the replay goes
 * back to `queued` for another worker. Every write of a run's result is fenced
 * by the lease, so two workers never both store a run of one replay.
 */
import { randomUUID } from "node:crypto";
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import { runFailure } from "@/lib/run-failures";
import { sqlStatement } from "./sql";
import { EVENT_WINDOW } from "./session-reads";

export type ReplayClaim =
  | {
      kind: "claimed";
      attempts: number;
      experimentId: string | null;
      /** A cancel was asked for, of the replay or of its experiment. */
      cancelRequested: boolean;
      /** Steps an earlier run stored (0: nothing to replace). */
      stepCount: number;
      /** The run's context, when the claim was asked to read it (else null). */
      also: unknown;
      /** With the context, the base's event rows as JSON when its seqs lie within one EVENT_WINDOW; else null. */
      events: unknown[] | null;
    }
  /** Another worker holds a lease that has not run out. */
  | { kind: "busy"; owner: string | null }
  /** Nothing to run: finished, waiting for a person, or gone. */
  | { kind: "idle"; status: string | null };

/**
 * Claims a replay for one run: `queued`, or `running` under a lease that ran
 * out (its worker is gone). One statement, so of two workers only one gets it.
 */
export async function claimReplayRun(
  client: DbClient,
  replayId: string,
  owner: string,
  leaseMs: number,
  /** Read the run's context (lib/db/replay-save.ts replayRunContext) as `also`, a short base's events as `events`. */
  withContext = false,
): Promise<ReplayClaim> {
  // Lease times are the database's clock. One round trip (on the driver: sqlStatement) to the database function
  // claim_replay_run (planned once per connection): the claim, its experiment marked running (`pending` →
  // `running`), whether a cancel was asked for (replay or experiment), and the run's context and base when asked for.
  const rows = await sqlStatement<Omit<Extract<ReplayClaim, { kind: "claimed" }>, "kind">>(
    client,
    Prisma.sql`SELECT * FROM claim_replay_run(${replayId}::text, ${owner}::text, ${leaseMs / 1000}::float8,
      ${withContext}::boolean, ${EVENT_WINDOW}::int)`,
  );
  const row = rows[0];
  if (row) return { kind: "claimed", ...row };
  const current = await client.replay.findUnique({
    where: { id: replayId },
    select: { status: true, leaseOwner: true },
  });
  if (current?.status === "running") return { kind: "busy", owner: current.leaseOwner };
  return { kind: "idle", status: current?.status ?? null };
}

/** The heartbeat: extends the lease while this owner holds it; false when it was lost. */
export async function renewReplayLease(
  client: DbClient,
  replayId: string,
  owner: string,
  leaseMs: number,
): Promise<boolean> {
  const count = await client.$executeRaw`
    UPDATE "Replay" SET "leaseUntil" = now() + make_interval(secs => ${leaseMs / 1000}::float8)
     WHERE id = ${replayId} AND "leaseOwner" = ${owner} AND status = 'running'`;
  return count === 1;
}

/** Fencing: true when this owner still holds the replay. Call inside the transaction that stores a run. */
export async function holdsReplayLease(client: DbClient, replayId: string, owner: string): Promise<boolean> {
  const rows = await client.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Replay" WHERE id = ${replayId} AND "leaseOwner" = ${owner} AND status = 'running' FOR UPDATE`;
  return rows.length === 1;
}

/**
 * Drops this owner's lease (the run ended). A run that stored its result
 * (`finished`) resets the attempt count: the limit counts runs in a row that
 * ended without one, not a replay's resumes.
 */
export async function releaseReplayLease(
  client: DbClient,
  replayId: string,
  owner: string,
  finished = false,
): Promise<void> {
  await client.replay.updateMany({
    where: { id: replayId, leaseOwner: owner },
    data: { leaseOwner: null, leaseUntil: null, ...(finished ? { attempts: 0 } : {}) },
  });
}

/**
 * Replays left `running` by a worker that is gone (lease run out, or a row from
 * before leases), put back to `queued`; returns their ids so the caller
 * enqueues them. One statement, so of two sweepers each row goes to one.
 */
export async function requeueAbandonedReplays(
  client: DbClient,
  mine: readonly string[] = [],
  limit = 500,
): Promise<string[]> {
  // `mine`: replays the calling process is running; a heartbeat it sent late does not make them abandoned.
  const rows = await client.$queryRaw<{ id: string }[]>`
    UPDATE "Replay" SET status = 'queued', "leaseOwner" = NULL, "leaseUntil" = NULL, "updatedAt" = now()
     WHERE id IN (
       SELECT id FROM "Replay"
        WHERE status = 'running' AND driver = 'server' AND ("leaseUntil" IS NULL OR "leaseUntil" < now())
          AND NOT (id = ANY(${[...mine]}::text[]))
        ORDER BY "createdAt" LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
 RETURNING id`;
  return rows.map((r) => r.id);
}

/** On the embedded database only (one process, proven by the folder lock): every lease is the last process's. */
export async function dropAllLeases(client: DbClient): Promise<number> {
  const { count } = await client.replay.updateMany({
    // An agent-driven replay is `running` while its agent calls, with no worker and no lease: not a worker's.
    where: { status: "running", driver: "server" },
    data: { status: "queued", leaseOwner: null, leaseUntil: null },
  });
  return count;
}

/** Replays waiting for a worker, oldest first (to re-enqueue after a restart). */
export async function queuedReplayIdsAll(client: DbClient, limit = 10_000): Promise<string[]> {
  const rows = await client.replay.findMany({
    where: { status: "queued" },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: limit,
    select: { id: true },
  });
  return rows.map((r) => r.id);
}

export async function saveReplayProgress(
  client: DbClient,
  replayId: string,
  owner: string,
  done: number,
  total: number,
): Promise<void> {
  await client.replay.updateMany({
    where: { id: replayId, leaseOwner: owner },
    data: { progressDone: done, progressTotal: total },
  });
}

/** Whether a person asked to cancel this replay or its experiment. */
export async function replayCancelRequested(client: DbClient, replayId: string): Promise<boolean> {
  const rows = await client.$queryRaw<{ cancelled: boolean }[]>`
    SELECT (r."cancelRequested" OR COALESCE(e."cancelRequested", false)) AS cancelled
      FROM "Replay" r LEFT JOIN "Experiment" e ON e.id = r."experimentId"
     WHERE r.id = ${replayId}`;
  return rows[0]?.cancelled ?? false;
}

const CANCELLED_ERROR = runFailure("cancelled", "Cancelled before it ran.");

/** Marks a replay cancelled (a queued one, or one whose worker saw the request before it ran anything). */
export async function markReplayCancelled(client: DbClient, replayId: string, message: string): Promise<void> {
  await client.replay.update({
    where: { id: replayId },
    data: {
      status: "cancelled",
      comparability: "non_comparable",
      error: { ...runFailure("cancelled", message) },
      finishedAt: new Date(),
      leaseOwner: null,
      leaseUntil: null,
    },
  });
}

export type CancelOutcome = "cancelled" | "stopping" | "finished" | "missing";

/**
 * Cancels a replay: a queued one at once; a running one stops at its next step
 * boundary (its worker checks the flag), keeping the steps so far. Paused and
 * awaiting-approval replays are cancelled at once too (nothing runs them).
 */
export async function cancelReplayRow(client: DbClient, replayId: string): Promise<CancelOutcome> {
  const now = new Date();
  const { count } = await client.replay.updateMany({
    where: { id: replayId, status: { in: ["queued", "paused", "awaiting_approval"] } },
    data: {
      status: "cancelled",
      cancelRequested: true,
      comparability: "non_comparable",
      pending: Prisma.DbNull,
      error: { ...runFailure("cancelled", "Cancelled by a person.") },
      finishedAt: now,
    },
  });
  if (count === 1) return "cancelled";
  const running = await client.replay.updateMany({
    where: { id: replayId, status: "running" },
    data: { cancelRequested: true },
  });
  if (running.count === 1) return "stopping";
  const exists = await client.replay.findUnique({ where: { id: replayId }, select: { id: true } });
  return exists ? "finished" : "missing";
}

/** Cancels an experiment: queued members at once, running ones at their next step boundary. */
export async function cancelExperimentRows(
  client: DbClient,
  experimentId: string,
): Promise<{ cancelled: number; stopping: number } | "finished" | null> {
  const { count } = await client.experiment.updateMany({
    where: { id: experimentId, status: { in: ["pending", "running"] } },
    data: { cancelRequested: true },
  });
  if (count === 0) {
    const exists = await client.experiment.findUnique({ where: { id: experimentId }, select: { id: true } });
    return exists ? "finished" : null;
  }
  const cancelled = await client.replay.updateMany({
    where: { experimentId, status: "queued" },
    data: {
      status: "cancelled",
      cancelRequested: true,
      comparability: "non_comparable",
      error: { ...CANCELLED_ERROR },
      finishedAt: new Date(),
    },
  });
  const stopping = await client.replay.updateMany({
    where: { experimentId, status: "running" },
    data: { cancelRequested: true },
  });
  await settleExperiment(client, experimentId);
  return { cancelled: cancelled.count, stopping: stopping.count };
}

/**
 * Finishes an experiment once none of its replays is queued or running:
 * `cancelled` when a cancel was asked for, else `completed`. Safe to call from
 * every worker after every member: only the first call that sees it done writes.
 */
export async function settleExperiment(client: DbClient, experimentId: string): Promise<string | null> {
  // A worker calls this after every member: on the driver when `client` is the root client (no query interpreter
  // between), inside a transaction in it.
  const rows = await sqlStatement<{ status: string }>(
    client,
    Prisma.sql`
    UPDATE "Experiment"
       SET status = CASE WHEN "cancelRequested" THEN 'cancelled' ELSE 'completed' END, "finishedAt" = now()
     WHERE id = ${experimentId}
       AND status IN ('pending', 'running')
       -- Two equality probes of the (experimentId, status) index: an IN list let the planner walk every member.
       AND NOT EXISTS (SELECT 1 FROM "Replay" r WHERE r."experimentId" = ${experimentId} AND r.status = 'queued')
       AND NOT EXISTS (SELECT 1 FROM "Replay" r WHERE r."experimentId" = ${experimentId} AND r.status = 'running')
 RETURNING status`,
  );
  return rows[0]?.status ?? null;
}

const JOB_ROW = {
  id: true,
  status: true,
  attempts: true,
  leaseOwner: true,
  leaseUntil: true,
  progressDone: true,
  progressTotal: true,
  cancelRequested: true,
  error: true,
  createdAt: true,
  updatedAt: true,
  experimentId: true,
  session: { select: { id: true, title: true, externalId: true } },
} satisfies Prisma.ReplaySelect;

/** What the jobs page lists: counts by state, and the running, queued and failed replays (newest failures first). */
export async function jobOverview(client: DbClient, limit = 50) {
  const [counts, running, queued, failed] = await Promise.all([
    client.replay.groupBy({
      by: ["status"],
      where: { status: { in: ["queued", "running", "failed"] } },
      _count: { _all: true },
    }),
    client.replay.findMany({
      where: { status: "running" },
      orderBy: { updatedAt: "asc" },
      take: limit,
      select: JOB_ROW,
    }),
    client.replay.findMany({
      where: { status: "queued" },
      orderBy: { createdAt: "asc" },
      take: limit,
      select: JOB_ROW,
    }),
    client.replay.findMany({
      where: { status: "failed" },
      orderBy: { updatedAt: "desc" },
      take: limit,
      select: JOB_ROW,
    }),
  ]);
  const count = (status: string) => counts.find((c) => c.status === status)?._count._all ?? 0;
  return {
    counts: { queued: count("queued"), running: count("running"), failed: count("failed") },
    running,
    queued,
    failed,
    investigations: await investigationJobs(client, limit),
    fixSearches: await fixSearchJobs(client, limit),
  };
}

const INVESTIGATION_JOB_ROW = {
  id: true,
  kind: true,
  status: true,
  attempts: true,
  leaseOwner: true,
  leaseUntil: true,
  probes: true,
  estimate: true,
  cancelRequested: true,
  error: true,
  createdAt: true,
  finishedAt: true,
  session: { select: { id: true, title: true, externalId: true } },
} satisfies Prisma.InvestigationSelect;

/** Investigations waiting, running (with the worker holding each) and failed, for the jobs overview. */
async function investigationJobs(client: DbClient, limit: number) {
  const [counts, rows] = await Promise.all([
    client.investigation.groupBy({
      by: ["status"],
      where: { status: { in: ["queued", "running", "failed"] } },
      _count: { _all: true },
    }),
    // Up to `limit` of each state, as for replays: old failures must not push running ones off the list.
    Promise.all(
      (["running", "queued", "failed"] as const).map((status) =>
        client.investigation.findMany({
          where: { status },
          orderBy: { createdAt: status === "failed" ? "desc" : "asc" },
          take: limit,
          select: INVESTIGATION_JOB_ROW,
        }),
      ),
    ).then((byState) => byState.flat()),
  ]);
  const count = (status: string) => counts.find((c) => c.status === status)?._count._all ?? 0;
  return {
    counts: { queued: count("queued"), running: count("running"), failed: count("failed") },
    rows,
  };
}
const FIX_SEARCH_JOB_ROW = {
  id: true,
  status: true,
  attempts: true,
  leaseOwner: true,
  leaseUntil: true,
  probes: true,
  changes: true,
  cancelRequested: true,
  error: true,
  createdAt: true,
  cluster: {
    select: {
      id: true,
      label: true,
      check: true,
      step: true,
      errorType: true,
      message: true,
      agent: { select: { name: true } },
    },
  },
} satisfies Prisma.ClusterFixSearchSelect;

/** Smallest-fix searches waiting, running (with the worker holding each) and failed, for the jobs overview. */
async function fixSearchJobs(client: DbClient, limit: number) {
  const [counts, rows] = await Promise.all([
    client.clusterFixSearch.groupBy({
      by: ["status"],
      where: { status: { in: ["queued", "running", "failed"] } },
      _count: { _all: true },
    }),
    // Up to `limit` of each state, as for investigations.
    Promise.all(
      (["running", "queued", "failed"] as const).map((status) =>
        client.clusterFixSearch.findMany({
          where: { status },
          orderBy: { createdAt: status === "failed" ? "desc" : "asc" },
          take: limit,
          select: FIX_SEARCH_JOB_ROW,
        }),
      ),
    ).then((byState) => byState.flat()),
  ]);
  const count = (status: string) => counts.find((c) => c.status === status)?._count._all ?? 0;
  return {
    counts: { queued: count("queued"), running: count("running"), failed: count("failed") },
    rows,
  };
}
export type JobRow = Awaited<ReturnType<typeof jobOverview>>["running"][number];

/**
 * Puts a failed replay back on the queue: it runs again from its branch log
 * (fixtures, approvals and live results kept), so no live call is repeated.
 * False when it is not failed.
 */
export async function retryReplayRow(client: DbClient, replayId: string): Promise<boolean | null> {
  const { count } = await client.replay.updateMany({
    where: { id: replayId, status: "failed" },
    data: {
      status: "queued",
      attempts: 0,
      error: Prisma.DbNull,
      finishedAt: null,
      cancelRequested: false,
      leaseOwner: null,
      leaseUntil: null,
    },
  });
  if (count === 1) {
    // Its experiment is not finished any more.
    const row = await client.replay.findUnique({ where: { id: replayId }, select: { experimentId: true } });
    if (row?.experimentId)
      await client.experiment.updateMany({
        where: { id: row.experimentId, status: { in: ["completed", "failed"] } },
        data: { status: "running", finishedAt: null },
      });
    return true;
  }
  const exists = await client.replay.findUnique({ where: { id: replayId }, select: { id: true } });
  return exists ? false : null;
}

/** The message of the error a replay's last run stored, if any. */
export async function replayLastError(client: DbClient, replayId: string): Promise<string | undefined> {
  const row = await client.replay.findUnique({ where: { id: replayId }, select: { error: true } });
  return (row?.error as { message?: string } | null)?.message;
}

export type LiveCallStart =
  /** Recorded: make the call now. */
  | { kind: "go" }
  /** Its result is in the branch log already (a run that lost the replay stored it late): use it. */
  | { kind: "answered"; payload: unknown }
  /** An earlier run started it and its result never arrived: it is not made again. */
  | { kind: "in_doubt"; owner: string | null; startedAt: Date }
  /** This run no longer holds the replay's lease: it calls nothing. */
  | { kind: "lease_lost" };

/**
 * Records, before a live call is made, that this run makes it, in one short
 * transaction fenced by the lease: of two runs of one replay (a worker whose
 * lease ran out under load, and the one that took over) only one records a
 * given call, and only the one that records it calls. The unique key makes it
 * hold whatever the timing.
 */
export async function beginLiveCall(
  client: DbClient,
  replayId: string,
  entryId: string,
  owner: string | null,
): Promise<LiveCallStart> {
  if (owner !== null && !(await holdsReplayLease(client, replayId, owner))) return { kind: "lease_lost" };
  const stored = await client.$queryRaw<{ payload: unknown }[]>`
    SELECT payload FROM "ReplayLogEntry" WHERE "replayId" = ${replayId} AND payload->>'id' = ${entryId} LIMIT 1`;
  if (stored[0]) return { kind: "answered", payload: stored[0].payload };
  const inserted = await client.$queryRaw<{ id: string }[]>`
    INSERT INTO "LiveCall" (id, "replayId", "entryId", owner)
    VALUES (${`lc_${randomUUID()}`}, ${replayId}, ${entryId}, ${owner})
    ON CONFLICT ("replayId", "entryId") DO NOTHING
    RETURNING id`;
  if (inserted[0]) return { kind: "go" };
  const earlier = await client.liveCall.findUniqueOrThrow({
    where: { replayId_entryId: { replayId, entryId } },
    select: { owner: true, startedAt: true },
  });
  return { kind: "in_doubt", owner: earlier.owner, startedAt: earlier.startedAt };
}

/** Notes on a replay why its job's run threw (shown on the replay and /settings/jobs); the queue retries the job. */
export async function noteReplayJobError(client: DbClient, replayId: string, message: string): Promise<void> {
  await client.replay.updateMany({ where: { id: replayId }, data: { error: { ...runFailure("job_error", message) } } });
}
