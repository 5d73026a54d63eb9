/**
 * A pull as a job: pages through the platform's trace list (oldest first, filtered; ./platforms.ts), fetches each
 * trace whole (Langfuse: with its observations; LangSmith: its run tree; Phoenix: its spans), and imports it as a session (a trace imported before is found again, never doubled). After
 * every trace, the session and the pull's cursor (page, the platform's page cursor, last trace id) and progress are written in one
 * transaction, so a run that takes over after a crash goes on from exactly where the last one stopped.
 *
 * A trace that cannot be read or mapped (nested too deep, a number too large, a shape the mapper refuses) is a
 * refusal recorded on the pull with its reasons; the pull goes on. The API itself failing (refused
 * credentials, retries used up, an unreadable list page) fails the pull with the reason, cursor kept.
 *
 * Sessions new to the store go through the import's after-import path (afterImport: the online checks attached to
 * their agents judge them, then their watches are evaluated), once a page and when the run ends however it ends;
 * a trace found again is not.
 */
import type { Db } from "@/lib/db";
import {
  claimPull,
  findConnector,
  findPull,
  finishPull,
  isPullCancelRequested,
  releasePullLease,
  renewPullLease,
  savePullState,
  storePulledTrace,
  type PullCursor,
  type PullProgress,
  type PullRefusal,
} from "@/lib/db/connectors";
import { allowedHosts } from "@/lib/db/executors";
import type { Resolver } from "@/lib/executors/outbound";
import { storableSessions } from "@/lib/hostile/storable";
import type { ImportedSession } from "@/lib/ingest/types";
import { keyEnvNameProblem } from "@/lib/executors/key-env";
import { ConnectorApiError, scoreMeets, type ConnectorClient, type HttpOptions, type PullFilter } from "./http";
import type { ScoreFilter, TracePage } from "./http";
import { pacerFor } from "./pacing";
import { platformOf, type Platform } from "./platforms";
import { afterImport } from "../checks/online";

export type PullDeps = {
  resolve?: Resolver;
  /** Traces per page of the list (Langfuse's default is 50). */
  pageSize?: number;
  client?: Partial<Pick<HttpOptions, "timeoutMs" | "maxRetries" | "backoffMs" | "maxWaitMs">>;
  /** Paces the requests (null: not at all); unset, the connector's platform's documented rate (./pacing.ts). */
  pace?: HttpOptions["pace"];
  /** The most list pages a pull reads (an endless run of pages is the platform's fault: the pull stops). */
  maxPages?: number;
  /** Called after each trace is stored with the cursor; a throw here stops the run as a crash would. */
  afterTrace?: (info: { page: number; traceId: string | null; traces: number }) => void | Promise<void>;
};

export type PullRun = { owner: string; leaseMs: number; maxAttempts: number };

class LeaseLost extends Error {}

/** A cursor's page, with the platform's page cursor when it pages by one (a page number is enough otherwise). */
const at = (page: number, token: string | null) => ({ page, ...(token !== null ? { token } : {}) });

/** Runs (or goes on with) a pull under this owner's lease; returns when it ended, stopped or was taken over. */
export async function runPull(prisma: Db, pullId: string, run: PullRun, deps: PullDeps = {}): Promise<void> {
  const claim = await claimPull(prisma, pullId, run.owner, run.leaseMs);
  if (claim.kind !== "claimed") return;
  let progress: PullProgress = claim.progress;
  let refusals: PullRefusal[] = claim.refusals;
  let cursor: PullCursor = claim.cursor ?? { page: 1, lastTraceId: null };
  const end = (status: "completed" | "failed" | "cancelled", error?: { code: string; message: string }) =>
    finishPull(prisma, pullId, run.owner, { status, progress, ...(error ? { error } : {}) });

  const pull = await findPull(prisma, pullId);
  const connector = pull ? await findConnector(prisma, { id: pull.connectorId }) : null;
  const platform = connector ? platformOf(connector.kind) : null;
  if (!pull || !connector || !platform) {
    await end("failed", { code: "not_found", message: "The connector of this pull was removed." });
    return;
  }
  if (claim.attempts > run.maxAttempts) {
    await end("failed", {
      code: "run_failed",
      message: `The pull stopped ${run.maxAttempts} times without finishing; it was given up at page ${cursor.page}.`,
    });
    return;
  }
  const keyProblem = keyEnvNameProblem(connector.secretKeyEnv, {
    what: "a connector",
    whose: "the platform's secret",
    users: "connectors",
  });
  const secretKey = process.env[connector.secretKeyEnv] ?? "";
  if (keyProblem || (!secretKey && !platform.secretOptional)) {
    await end("failed", {
      code: "executor_missing",
      message:
        keyProblem ??
        `The connector "${connector.name}" reads its secret key from $${connector.secretKeyEnv}, which is not set in this server's environment.`,
    });
    return;
  }

  const abort = new AbortController();
  const heartbeat = setInterval(
    () => {
      renewPullLease(prisma, pullId, run.owner, run.leaseMs)
        .then((held) => {
          if (!held) abort.abort(new LeaseLost("the lease was lost"));
        })
        .catch(() => undefined);
    },
    Math.max(200, Math.floor(run.leaseMs / 3)),
  );
  heartbeat.unref();
  const pageSize = deps.pageSize ?? 50;
  const filter = pull.filter as PullFilter;
  const client = platform.client(
    connector,
    secretKey,
    {
      allowed: await allowedHosts(prisma),
      signal: abort.signal,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
      pace: deps.pace === undefined ? pacerFor(connector) : deps.pace,
      ...deps.client,
      onRetry: () => {
        progress = { ...progress, retries: progress.retries + 1 };
      },
    },
    filter,
  );

  /** New sessions stored since the after-import path last took them. */
  let fresh: string[] = [];
  const afterStored = async () => {
    const ids = fresh;
    fresh = [];
    await afterImport(prisma, ids);
  };
  /** Stores one trace's outcome with the cursor past it, in one transaction; answers whether a cancel was asked. */
  const store = async (
    next: PullCursor,
    session: ImportedSession | null,
    refusal: PullRefusal | null,
    skipped: boolean,
  ) => {
    const state = await storePulledTrace(
      prisma,
      pullId,
      run.owner,
      { progress, refusals },
      { cursor: next, session, refusal, skipped },
    );
    if (state.stored) fresh.push(state.stored);
    if (!state.held) throw new LeaseLost("the lease was lost");
    progress = state.progress;
    refusals = state.refusals;
    cursor = next;
    return state.cancelRequested;
  };

  const maxPages = deps.maxPages ?? MAX_PAGES;
  /** Whether the filter's failed-only choice is checked on each trace read (the list could not filter by it). */
  const checkFailed = filter.error !== undefined && (filter.traceIds !== undefined || platform.errorAfterRead === true);
  try {
    for (;;) {
      if (await isPullCancelRequested(prisma, pullId)) return void (await end("cancelled"));
      const token = cursor.token ?? null;
      const page = filter.traceIds
        ? givenTraces(filter.traceIds, cursor.page, pageSize)
        : await client.listTraces(filter, { page: cursor.page, token }, pageSize);
      progress = { ...progress, totalPages: page.totalPages, totalItems: page.totalItems };
      let ids = page.ids;
      if (cursor.lastTraceId !== null) {
        const done = ids.indexOf(cursor.lastTraceId);
        if (done >= 0) ids = ids.slice(done + 1);
      }
      for (const traceId of ids) {
        if (await isPullCancelRequested(prisma, pullId)) return void (await end("cancelled"));
        const read = await readTrace(platform, client, traceId, cursor.page, connector.name);
        const skip = leftOut(read, filter, checkFailed);
        const next = { ...at(cursor.page, token), lastTraceId: traceId ?? cursor.lastTraceId };
        const cancel = await store(next, skip ? null : read.session, read.refusal, skip);
        await deps.afterTrace?.({ page: cursor.page, traceId, traces: progress.traces });
        if (cancel) return void (await end("cancelled"));
      }
      progress = { ...progress, pages: cursor.page };
      await afterStored();
      if (page.next === null) return void (await end("completed"));
      refuseRunawayList(platform, page.next, { page: cursor.page, token }, maxPages);
      const next = { ...at(page.next.page, page.next.token), lastTraceId: null };
      const held = await savePullState(prisma, pullId, run.owner, { cursor: next, progress, refusals });
      if (!held.held) return;
      cursor = next;
    }
  } catch (error) {
    if (error instanceof LeaseLost || abort.signal.reason instanceof LeaseLost) return;
    if (error instanceof ConnectorApiError) {
      await end("failed", { code: "run_failed", message: error.message });
      return;
    }
    // Anything else (the database, a crash): the pull stays running, its cursor kept; the next run goes on.
    await releasePullLease(prisma, pullId, run.owner).catch(() => undefined);
    throw error;
  } finally {
    clearInterval(heartbeat);
    // Stored sessions are committed whatever stopped the run: they are judged and watched all the same.
    await afterStored().catch((error: unknown) =>
      console.error("Branchpoint: after-import of pulled sessions:", error),
    );
  }
}

/**
 * Stops a pull whose platform answers a page with the cursor it was asked with, or offers a next page past `maxPages`:
 * either would read the list forever.
 */
function refuseRunawayList(
  platform: Platform,
  next: { page: number; token: string | null },
  asked: { page: number; token: string | null },
  maxPages: number,
) {
  if (next.token !== null && next.token === asked.token)
    throw new ConnectorApiError(
      `${platform.label} answered page ${asked.page} of the trace list with the same cursor it was asked with; the pull stops here so as not to read that page forever.`,
      200,
    );
  if (next.page > maxPages)
    throw new ConnectorApiError(
      `${platform.label} kept answering with a next page after ${maxPages} pages of the trace list; the pull stops here. Narrow the filter (a shorter time range) and pull again.`,
      200,
    );
}

/** The most list pages one pull reads. */
const MAX_PAGES = 10_000;

type TraceScore = { name: unknown; value: unknown };
/** Whether a trace's score is the one a filter asks for. */
const scoreMatches = (filter: ScoreFilter, score: TraceScore) =>
  score.name === filter.name && scoreMeets(filter, score.value);

/** Whether a trace read is left out by the checks its list could not make (failed or not; a score). */
function leftOut(
  read: { session: ImportedSession | null; scores: TraceScore[] },
  filter: PullFilter,
  checkFailed: boolean,
): boolean {
  if (read.session === null) return false;
  if (checkFailed && failed(read.session) !== filter.error) return true;
  return filter.score !== undefined && !read.scores.some((x) => scoreMatches(filter.score!, x));
}

/** A session failed when one of its steps did (Langfuse: an observation of level ERROR). */
const failed = (session: ImportedSession) => session.events.some((e) => e.status === "failed");

/** A page of the trace ids a pull was given: the `page`th run of `limit` of them. */
function givenTraces(ids: readonly string[], page: number, limit: number): TracePage {
  const last = page * limit >= ids.length;
  return {
    ids: ids.slice((page - 1) * limit, page * limit),
    next: last ? null : { page: page + 1, token: null },
    totalPages: Math.max(1, Math.ceil(ids.length / limit)),
    totalItems: ids.length,
  };
}

/** One listed trace, fetched and mapped: its session, or why it was refused. */
async function readTrace(
  platform: Platform,
  client: ConnectorClient,
  traceId: string | null,
  page: number,
  connector: string,
): Promise<{ session: ImportedSession | null; refusal: PullRefusal | null; scores: TraceScore[] }> {
  if (traceId === null)
    return {
      session: null,
      refusal: { traceId: null, issues: [{ path: `page ${page}`, message: "a listed trace has no id" }] },
      scores: [],
    };
  const answer = await client.getTrace(traceId);
  if (!answer.ok)
    return { session: null, refusal: { traceId, issues: [{ path: "", message: answer.message }] }, scores: [] };
  const mapped = platform.map(answer.trace);
  if (!mapped.ok) return { session: null, refusal: { traceId, issues: mapped.issues.slice(0, 20) }, scores: [] };
  if (mapped.session.externalId !== traceId)
    return {
      session: null,
      refusal: {
        traceId,
        issues: [{ path: "id", message: `${platform.label} answered with another trace than the one asked for` }],
      },
      scores: [],
    };
  const session = { ...mapped.session, metadata: { ...mapped.session.metadata, connector } };
  const storable = storableSessions([session]);
  if (!storable.ok) return { session: null, refusal: { traceId, issues: storable.issues.slice(0, 20) }, scores: [] };
  return { session: storable.sessions[0]!, refusal: null, scores: platform.scoresOf?.(answer.trace) ?? [] };
}
