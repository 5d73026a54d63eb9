/**
 * Investigations: a blame search (the model step that decided a failure) and
 * edit minimisation (the smallest fixing change), each many replays of one
 * session. The searches themselves are pure (lib/replay/investigate); this
 * module turns each probe into ordinary replays with outcome checks and
 * trials (so every probe is evidence an analyst can open), keeps the probes
 * as they finish, honours a cancel between probes, and bounds the cost before
 * anything runs.
 */
import { z } from "zod";
import type { Db } from "@/lib/db/client";
import { getReplayCounterfactual } from "@/lib/db/checks";
import { insertInvestigation, type InvestigationRow } from "@/lib/db/investigations";
import { getPolicyVersionById } from "@/lib/db/policies";
import { loadReplayMeta } from "@/lib/db/replays";
import { sessionContext, sessionEventsCompact } from "@/lib/db/session-reads";
import { knownTools } from "@/lib/db/history";
import { toolEndpointFor } from "@/lib/db/executors";
import { toolExecutor } from "@/lib/executors/live";
import { AppError, notFound } from "@/lib/errors";
import {
  blameProbeBound,
  type Edit,
  evaluateChecks,
  NamedCheck,
  parseVolatilePath,
  staleDiff,
  Policy,
  runPassed,
  type SessionEvent,
} from "@/lib/replay";
import { authorize } from "../authz";
import {
  CheckRef,
  judgeFor,
  MAX_CHECKS_PER_REPLAY,
  resolveChecks,
  resolveModelEndpoint,
} from "../checks/counterfactual";
import type { Principal } from "../principal";

/** Most trials per probe, and most replays one investigation may run in all. */
export const MAX_PROBE_TRIALS = 20;
export const MAX_INVESTIGATION_REPLAYS = 500;
/** Most edits a minimisation takes (ddmin may test up to (n² + 3n) / 2 subsets). */
export const MAX_MINIMIZE_EDITS = 16;

const Common = {
  checks: z
    .array(CheckRef)
    .min(1, "Choose at least one outcome check: it decides what a fix is.")
    .max(MAX_CHECKS_PER_REPLAY),
  trials: z.number().int().min(1).max(MAX_PROBE_TRIALS).default(3),
  /** Share of a probe's trials that must pass for it to count as a fix. */
  share: z.number().gt(0).max(1).default(0.5),
  modelEndpoint: z.string().trim().min(1).optional(),
};

export const StartInvestigationInput = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("blame"),
    sessionId: z.string().min(1, "Choose a session."),
    /** Tool rules, drift and budgets come from this policy version; the model is always fork-live from the probed step. */
    policyVersionId: z.string().min(1).optional(),
    ...Common,
  }),
  z.strictObject({
    kind: z.literal("stale"),
    sessionId: z.string().min(1, "Choose a session."),
    /** Paths whose differences do not count (timestamps, request ids): `$.updated_at`, `items[*].price`. */
    volatile: z
      .array(
        z
          .string()
          .max(500)
          .refine((p) => parseVolatilePath(p) !== null, "Write a path like $.updated_at or items[*].price."),
      )
      .max(50)
      .default([]),
  }),
  z.strictObject({
    kind: z.literal("minimize"),
    /** The branch whose edits fixed the run; its policy, edits and (unless given) checks are used. */
    replayId: z.string().min(1, "Choose the branch whose edits to minimise."),
    ...Common,
    checks: Common.checks.optional(),
  }),
]);
export type StartInvestigationInput = z.infer<typeof StartInvestigationInput>;

export const InvestigationRef = z.object({ investigationId: z.string().min(1) });
export type InvestigationRef = z.infer<typeof InvestigationRef>;

/** How probes run when the analyst names no policy: recorded tools, a call nobody recorded gets an error result. */
const BLAME_TOOLS: Policy["tools"] = { default: { type: "history", scope: "baseline", on_miss: "error_result" } };

export interface InvestigationEstimate {
  probes: number;
  trials: number;
  replays: number;
  maxLiveCallsPerTrial: number;
  maxLiveCalls: number;
  /** Stale check: the live tool calls it makes (one per distinct recorded call of a read-only tool). */
  liveToolCalls?: number;
}

/** A recorded call the stale check calls again. */
interface StaleTarget {
  seq: number;
  tool: string;
  callId: string;
  args: unknown;
  cacheKey: string | null;
  output: unknown;
  error: unknown;
}

export interface StaleRecord {
  seq: number;
  tool: string;
  /** stale: the live answer differs; fresh: it does not; unchecked: the tool could not be reached. */
  state: "stale" | "fresh" | "unchecked";
  paths: string[];
  ignored: string[];
  reason?: string;
}

export interface Params {
  checks: CheckRef[];
  trials: number;
  share: number;
  modelEndpoint: string | null;
  policy: Policy;
  /** blame: the base's model steps (seq and model name), in order. */
  modelSteps?: { seq: number; name: string }[];
  /** minimize: the branch's edits. */
  edits?: Edit[];
  /** stale: the recorded calls to check, and the volatile paths. */
  targets?: StaleTarget[];
  volatile?: string[];
  skipped?: { tool: string; reason: string }[];
}

export interface BlameProbeRecord {
  index: number;
  modelStep: number;
  baseSeq: number;
  passes: number;
  trials: number;
  passRate: number;
  fixes: boolean;
  replayIds: string[];
}

export interface MinimizeProbeRecord {
  kept: number[];
  fixes: boolean;
  passes: number;
  trials: number;
  replayIds: string[];
}

/** Live model calls one blame probe's trial may make (its policy's maxLiveCalls): enough for the agent to go on. */
export const blameLiveBudget = (modelSteps: number) => Math.min(2 * modelSteps + 10, 200);

/** The cost bound of `probes` probes of `trials` trials each, refused when it runs more replays than allowed. */
function bounded(probes: number, trials: number, perTrial: number, path: "trials" | "edits"): InvestigationEstimate {
  const replays = probes * trials;
  if (replays > MAX_INVESTIGATION_REPLAYS)
    throw new AppError(
      "invalid_input",
      `This would run up to ${replays} replays (${probes} probes × ${trials} trials); the most one investigation may run is ${MAX_INVESTIGATION_REPLAYS}. Use fewer trials${path === "edits" ? " or fewer edits" : ""}.`,
      [{ path: "trials", message: "too many replays" }],
    );
  return { probes, trials, replays, maxLiveCallsPerTrial: perTrial, maxLiveCalls: replays * perTrial };
}

async function baseFailure(prisma: Db, base: readonly SessionEvent[], checks: readonly NamedCheck[]) {
  const verdicts = await evaluateChecks(checks, { steps: base }, judgeFor(prisma, null));
  const passed = runPassed(verdicts);
  if (passed === true)
    throw new AppError(
      "invalid_input",
      "The base run already passes these checks: there is no failure to investigate. Choose checks it fails.",
      [{ path: "checks", message: "the base run passes them" }],
    );
  if (passed === null)
    throw new AppError(
      "invalid_input",
      `These checks cannot judge the base run: ${verdicts.find((v) => v.outcome === "check_error")?.reason ?? "no verdict"}`,
      [{ path: "checks", message: "no verdict on the base run" }],
    );
}

/**
 * Stores an investigation (status `queued`) with its cost bound, after checking everything that can be refused:
 * the session or branch, the checks (the base run must fail them), the policy, and the bound itself.
 * Run it with `runInvestigation`.
 */
export async function createInvestigation(principal: Principal, input: StartInvestigationInput, prisma: Db) {
  authorize(principal, "investigations.run");
  if (input.kind === "blame") {
    const session = await sessionContext(prisma, input.sessionId);
    if (!session) throw notFound("session", input.sessionId, "sessionId");
    // The stored form: blame reads model steps' seqs and names, and checks never read a model call's input.
    const base = await sessionEventsCompact(prisma, input.sessionId);
    const modelSteps = base.filter((e) => e.kind === "model_call").map((e) => ({ seq: e.seq, name: e.name }));
    if (modelSteps.length === 0)
      throw new AppError("invalid_input", "The session has no model step: there is no decision to blame.", [
        { path: "sessionId", message: "no model steps" },
      ]);
    let template: Policy = { model: "recorded-only", drift: "continue_to_terminal", maxSteps: 200, tools: BLAME_TOOLS };
    if (input.policyVersionId) {
      const version = await getPolicyVersionById(prisma, input.policyVersionId);
      if (!version) throw notFound("policy version", input.policyVersionId, "policyVersionId");
      template = Policy.parse(version.document);
    }
    const perTrial = blameLiveBudget(modelSteps.length);
    const policy: Policy = { ...template, model: "recorded-until-divergence", maxLiveCalls: perTrial };
    delete policy.liveFromModelStep;
    const endpoint = await resolveModelEndpoint(prisma, input.modelEndpoint, modelSteps[0]?.name, session);
    if (!endpoint)
      throw new AppError(
        "executor_missing",
        "A blame search runs the model live, and no model endpoint serves it (Settings → Executors): configure one, or name one.",
        [{ path: "modelEndpoint", message: "no model endpoint" }],
      );
    const checks = await resolveChecks(prisma, input.checks);
    await baseFailure(prisma, base, checks);
    const estimate = bounded(blameProbeBound(modelSteps.length), input.trials, perTrial, "trials");
    const params: Params = {
      checks: input.checks,
      trials: input.trials,
      share: input.share,
      modelEndpoint: endpoint.name,
      policy,
      modelSteps,
    };
    return storeInvestigation(principal, prisma, {
      kind: "blame",
      sessionId: input.sessionId,
      replayId: null,
      params,
      estimate,
    });
  }

  if (input.kind === "stale") return createStaleCheck(principal, input, prisma);

  // The replay row only: its base run is read below in the stored form (checks never read a model call's input).
  const meta = await loadReplayMeta(prisma, input.replayId, { inputDrift: false });
  if (!meta) throw notFound("replay", input.replayId, "replayId");
  const edits = meta.replay.edits;
  if (edits.length < 2)
    throw new AppError(
      "invalid_input",
      `The branch has ${edits.length === 0 ? "no edits" : "one edit"}: there is nothing smaller to find.`,
      [{ path: "replayId", message: "needs at least two edits" }],
    );
  if (edits.length > MAX_MINIMIZE_EDITS)
    throw new AppError(
      "invalid_input",
      `The branch has ${edits.length} edits; minimising takes at most ${MAX_MINIMIZE_EDITS}.`,
      [{ path: "replayId", message: "too many edits" }],
    );
  let refs: CheckRef[] = input.checks ?? [];
  if (refs.length === 0) {
    const stored = z.array(NamedCheck).safeParse((await getReplayCounterfactual(prisma, input.replayId))?.checks ?? []);
    refs = (stored.success ? stored.data : []).map((c) => ({ name: c.name, definition: c.definition }));
  }
  if (refs.length === 0)
    throw new AppError("invalid_input", "The branch has no outcome checks; choose the checks a fix must pass.", [
      { path: "checks", message: "required" },
    ]);
  const checks = await resolveChecks(prisma, refs);
  const base = await sessionEventsCompact(prisma, meta.replay.sessionId);
  await baseFailure(prisma, base, checks);
  const policy = meta.replay.policySnapshot;
  const perTrial =
    policy.model === "recorded-only" || policy.model === "blocked"
      ? 0
      : (policy.maxLiveCalls ?? policy.maxSteps ?? blameLiveBudget(base.length));
  const n = edits.length;
  // ddmin tests at most (n² + 3n) / 2 subsets.
  const estimate = bounded((n * n + 3 * n) / 2, input.trials, perTrial, "edits");
  const params: Params = {
    checks: refs,
    trials: input.trials,
    share: input.share,
    modelEndpoint: input.modelEndpoint ?? null,
    policy,
    edits,
  };
  return storeInvestigation(principal, prisma, {
    kind: "minimize",
    sessionId: meta.replay.sessionId,
    replayId: input.replayId,
    params,
    estimate,
  });
}

/** Stores a new investigation, signed by the principal, and answers it as pages and the API show it (one way for every kind). */
async function storeInvestigation(
  principal: Principal,
  prisma: Db,
  row: Omit<Parameters<typeof insertInvestigation>[1], "createdBy">,
) {
  return presentInvestigation(await insertInvestigation(prisma, { ...row, createdBy: principal.name }));
}

/** Executor refusals and transport failures: the tool was not reached, so nothing is known about its answer. */
const UNREACHED = /^(NoToolEndpoint|BadToolEndpoint|HostNotAllowed|Tool_)/;

async function createStaleCheck(
  principal: Principal,
  input: Extract<StartInvestigationInput, { kind: "stale" }>,
  prisma: Db,
) {
  const session = await sessionContext(prisma, input.sessionId);
  if (!session) throw notFound("session", input.sessionId, "sessionId");
  // The stored form: a stale check reads tool calls only, whose inputs are stored whole.
  const base = await sessionEventsCompact(prisma, input.sessionId);
  const sideEffects = new Map((await knownTools(prisma, session.agentId)).map((t) => [t.name, t.sideEffect]));
  const recorded = base.filter((e) => e.kind === "tool_call" && e.status === "completed");
  const skipped: { tool: string; reason: string }[] = [];
  const eligible = new Set<string>();
  for (const tool of new Set(recorded.map((e) => e.name))) {
    const effect = sideEffects.get(tool) ?? "unknown";
    if (effect !== "read" && effect !== "none")
      skipped.push({ tool, reason: `not declared read-only (${effect}); calling it again could change something` });
    else if (!(await toolEndpointFor(prisma, tool)))
      skipped.push({ tool, reason: "no live endpoint (Settings → Executors)" });
    else eligible.add(tool);
  }
  const seen = new Set<string>();
  const targets: StaleTarget[] = [];
  for (const e of recorded) {
    if (!eligible.has(e.name)) continue;
    const input = (e.input ?? {}) as { callId?: string; args?: unknown };
    const key = `${e.name}\u0000${e.cacheKey ?? JSON.stringify(input.args ?? null)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    targets.push({
      seq: e.seq,
      tool: e.name,
      callId: input.callId ?? `stale-${e.seq}`,
      args: input.args ?? {},
      cacheKey: e.cacheKey,
      output: e.output,
      error: e.error ?? null,
    });
  }
  if (targets.length === 0)
    throw new AppError(
      "invalid_input",
      recorded.length === 0
        ? "The session has no completed tool call to check."
        : `No recorded call can be checked: ${skipped.map((k) => `${k.tool} has ${k.reason}`).join("; ")}.`,
      [{ path: "sessionId", message: "no read-only tool with an endpoint" }],
    );
  const params: Params = {
    checks: [],
    trials: 1,
    share: 1,
    modelEndpoint: null,
    policy: { model: "recorded-only", drift: "continue_to_terminal", tools: BLAME_TOOLS },
    targets,
    volatile: input.volatile,
    skipped,
  };
  const estimate: InvestigationEstimate = {
    probes: targets.length,
    trials: 1,
    replays: 0,
    maxLiveCallsPerTrial: 0,
    maxLiveCalls: 0,
    liveToolCalls: targets.length,
  };
  return storeInvestigation(principal, prisma, {
    kind: "stale",
    sessionId: input.sessionId,
    replayId: null,
    params,
    estimate,
  });
}

/** Calls each target's tool again with its recorded arguments and compares; a cancel stops between calls. */
export async function runStaleCheck(params: Params, prisma: Db, records: StaleRecord[], save: () => Promise<boolean>) {
  const volatile = (params.volatile ?? []).map((p) => parseVolatilePath(p)!).filter(Boolean);
  const call = toolExecutor(prisma);
  const checked = new Set(records.map((r) => r.seq));
  for (const t of params.targets ?? []) {
    if (checked.has(t.seq)) continue;
    if (await save()) return "cancelled" as const;
    const answer = await call({ tool: t.tool, callId: t.callId, args: t.args, cacheKey: t.cacheKey, step: t.seq });
    if (answer.error && UNREACHED.test(answer.error.type)) {
      records.push({
        seq: t.seq,
        tool: t.tool,
        state: "unchecked",
        paths: [],
        ignored: [],
        reason: answer.error.message,
      });
      continue;
    }
    const verdict = staleDiff({ output: t.output, error: t.error }, answer, volatile);
    records.push({
      seq: t.seq,
      tool: t.tool,
      state: verdict.stale ? "stale" : "fresh",
      paths: verdict.paths,
      ignored: verdict.ignored,
    });
  }
  await save();
  return "completed" as const;
}

/** The API's (and the page's) shape of an investigation. */
export function presentInvestigation(row: InvestigationRow) {
  const params = row.params as Params;
  const estimate = row.estimate as InvestigationEstimate;
  const probes = (row.probes ?? []) as (BlameProbeRecord | MinimizeProbeRecord | StaleRecord)[];
  return {
    id: row.id,
    kind: row.kind as "blame" | "minimize" | "stale",
    status: row.status,
    sessionId: row.sessionId,
    replayId: row.replayId,
    params: {
      checks: params.checks,
      trials: params.trials,
      share: params.share,
      modelEndpoint: params.modelEndpoint,
      policy: params.policy,
      ...(params.edits ? { edits: params.edits } : {}),
      ...(params.modelSteps ? { modelSteps: params.modelSteps } : {}),
      ...(params.volatile ? { volatile: params.volatile, skipped: params.skipped ?? [] } : {}),
    },
    estimate,
    progress: { probes: probes.length, of: estimate.probes },
    probes,
    result: row.result ?? null,
    error: (row.error ?? null) as { code: string; message: string } | null,
    cancelRequested: row.cancelRequested,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}
export type InvestigationView = ReturnType<typeof presentInvestigation>;
