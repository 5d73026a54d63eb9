/**
 * Counterfactual replays: saved outcome checks and their verdicts on a base
 * run and its branch, the model endpoint a live branch runs on, and repeated
 * trials (N ordinary replays grouped by a trial-set id, so a job runner can
 * run them like any other replay).
 */
import { z } from "zod";
import type { DbClient, Db } from "@/lib/db/client";
import {
  checksByIds,
  findCheckByName,
  findModelEndpointByIdOrName,
  listModelEndpoints,
  getReplayCounterfactual,
  insertCheck,
  listCheckRows,
  loadTrialSet,
  siblingBaseVerdicts,
  type CheckRow,
  type StoredVerdicts,
} from "@/lib/db/checks";
import { toReplayStep } from "@/lib/db/replay-steps";
import { isTerminal } from "@/lib/db/replays";
import { sessionContext, sessionEventsCompact } from "@/lib/db/session-reads";
import { AppError, notFound } from "@/lib/errors";
import { hasModelEndpoint } from "@/lib/db/executors";
import { DEMO_MODEL, isDemoModel } from "@/lib/executors/demo-model";
import { modelExecutor } from "@/lib/executors/live";
import {
  CheckDefinition,
  evaluateChecks,
  firstDivergenceOf,
  MAX_TRIALS,
  NamedCheck,
  runPassed,
  trialStats,
  trialSteps,
  verdictChange,
  type CheckVerdict,
  type Evidence,
  type JudgeExecutor,
  type ModelPolicy,
  type ReplayResult,
  type SessionEvent,
} from "@/lib/replay";
import { authorize } from "../authz";
import type { Principal } from "../principal";

/** Model policies that run a model live, and so need a model endpoint. */
export const LIVE_MODEL_POLICIES: ReadonlySet<ModelPolicy> = new Set([
  "pinned-live",
  "compatible-live",
  "determinism-probe",
  "recorded-until-divergence",
]);

/** Policies under which repeated trials can differ from one another. */
const TRIAL_POLICIES: ReadonlySet<ModelPolicy> = new Set([
  "pinned-live",
  "compatible-live",
  "recorded-until-divergence",
]);

/** Most checks one replay may carry. */
export const MAX_CHECKS_PER_REPLAY = 20;

export const CreateCheckInput = z.strictObject({
  name: z.string().trim().min(1, "Give the check a name.").max(200),
  definition: CheckDefinition,
});
export type CreateCheckInput = z.infer<typeof CreateCheckInput>;

/** A check in a replay request: a saved check's id, or a definition written inline (optionally named). */
export const CheckRef = z.union([
  z.string().min(1),
  z.strictObject({ name: z.string().trim().min(1).max(200).optional(), definition: CheckDefinition }),
]);
export type CheckRef = z.infer<typeof CheckRef>;

/** The counterfactual extras of `POST /api/v1/replays`. */
export const CounterfactualInput = z.object({
  /** A model endpoint's name or id. */
  modelEndpoint: z.string().trim().min(1).optional(),
  checks: z.array(CheckRef).max(MAX_CHECKS_PER_REPLAY).optional(),
  trials: z.number().int().min(1).max(MAX_TRIALS).optional(),
});
export type CounterfactualInput = z.infer<typeof CounterfactualInput>;

export function presentCheck(row: CheckRow) {
  return {
    id: row.id,
    name: row.name,
    definition: row.definition,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Saves an outcome check under a unique name. */
export async function createCheck(principal: Principal, input: CreateCheckInput, prisma: Db) {
  authorize(principal, "checks.write");
  const { name, definition } = input;
  if (await findCheckByName(prisma, name))
    throw new AppError("conflict", `A check named "${name}" already exists; choose another name.`, [
      { path: "name", message: "already used" },
    ]);
  return presentCheck(await insertCheck(prisma, { name, definition, createdBy: principal.name }));
}

export async function listChecks(principal: Principal, _input: Record<string, never>, prisma: Db) {
  authorize(principal, "checks.read");
  return (await listCheckRows(prisma)).map(presentCheck);
}

/** The checks a replay request names, as definitions: saved ones by id, inline ones as written. */
export async function resolveChecks(client: DbClient, refs: readonly CheckRef[]): Promise<NamedCheck[]> {
  const ids = refs.filter((r): r is string => typeof r === "string");
  const rows = new Map((await checksByIds(client, ids)).map((r) => [r.id, r]));
  const missing = refs.flatMap((r, k) => (typeof r === "string" && !rows.has(r) ? [k] : []));
  if (missing.length > 0)
    throw new AppError(
      "invalid_input",
      `No saved check with id ${missing.map((k) => `"${refs[k] as string}"`).join(", ")}.`,
      missing.map((k) => ({ path: `checks[${k}]`, message: "no saved check with this id" })),
    );
  return refs.map((ref, k) => {
    if (typeof ref !== "string")
      return {
        name: ref.name ?? `check ${k + 1} (${ref.definition.kind.replaceAll("_", " ")})`,
        definition: ref.definition,
      };
    const row = rows.get(ref)!;
    const definition = CheckDefinition.safeParse(row.definition);
    if (!definition.success)
      throw new AppError("invalid_input", `The saved check "${row.name}" no longer parses.`, [
        { path: `checks[${k}]`, message: definition.error.issues[0]?.message ?? "invalid" },
      ]);
    return { id: row.id, name: row.name, definition: definition.data };
  });
}

/**
 * The model endpoint a live branch runs on: the one named (by name or id), or
 * by default the only one, or the one serving the recorded model. Null when
 * none is configured or several are and none matches (the executor then
 * takes the first).
 */
export async function resolveModelEndpoint(
  client: DbClient,
  wanted: string | undefined,
  recordedModel: string | undefined,
  /** The session the model runs for: demo data runs on the built-in demo model unless another is named. */
  session: { demo: boolean } = { demo: false },
): Promise<{ id: string; name: string } | null> {
  // Demo data with no endpoint named and none configured: the built-in demo model, so a counterfactual works
  // on a first start. Named, it serves demo data only.
  if (isDemoModel(wanted) || (!wanted && session.demo && !(await hasModelEndpoint(client)))) {
    if (!session.demo)
      throw new AppError(
        "invalid_input",
        `"${DEMO_MODEL.name}" answers only the demo sessions; name a model endpoint of your own (Settings → Executors).`,
        [{ path: "modelEndpoint", message: "the demo model serves only demo data" }],
      );
    return { id: DEMO_MODEL.id, name: DEMO_MODEL.name };
  }
  if (wanted) {
    const found = await findModelEndpointByIdOrName(client, wanted);
    if (!found)
      throw new AppError("invalid_input", `No model endpoint named "${wanted}" (Settings → Executors).`, [
        { path: "modelEndpoint", message: "no such model endpoint" },
      ]);
    return found;
  }
  const all = await listModelEndpoints(client);
  if (all.length === 1) return { id: all[0]!.id, name: all[0]!.name };
  const matching = recordedModel ? all.find((e) => e.model === recordedModel || e.name === recordedModel) : undefined;
  return matching ? { id: matching.id, name: matching.name } : null;
}

export interface PreparedCounterfactual {
  modelEndpointId: string | null;
  checks: NamedCheck[];
  trials: number;
}

/** Checks a replay request's counterfactual extras against its policy and session; throws `AppError` (nothing written). */
export async function prepareCounterfactual(
  client: DbClient,
  input: CounterfactualInput,
  model: ModelPolicy,
  base: readonly SessionEvent[],
  session: { demo: boolean } = { demo: false },
): Promise<PreparedCounterfactual> {
  const trials = input.trials ?? 1;
  if (trials > 1 && !TRIAL_POLICIES.has(model))
    throw new AppError(
      "invalid_input",
      `Repeated trials need a model that runs live (fork-live "recorded-until-divergence", "pinned-live" or "compatible-live"); under "${model}" every trial would be the same.`,
      [{ path: "trials", message: "needs a live model policy" }],
    );
  const recordedModel = base.find((e) => e.kind === "model_call")?.name;
  const endpoint = await resolveModelEndpoint(client, input.modelEndpoint, recordedModel, session);
  const checks = await resolveChecks(client, input.checks ?? []);
  return { modelEndpointId: endpoint?.id ?? null, checks, trials };
}

/** An LLM judge over a configured model endpoint (the check's `model` names one; else the replay's). */
export function judgeFor(client: DbClient, endpointId: string | null): JudgeExecutor {
  return async ({ messages, model }) => {
    const run = modelExecutor(client, undefined, model ? null : endpointId);
    const answer = await run({
      modelStep: 0,
      step: 0,
      messages,
      model,
      temperature: 0,
      tools: undefined,
      recorded: null,
    });
    const content = answer.output.content;
    return {
      content:
        typeof content === "string"
          ? content
          : content === null || content === undefined
            ? null
            : JSON.stringify(content),
      ...(answer.model ? { model: answer.model } : {}),
    };
  };
}

/**
 * Once a branch has finished, judges it and its base run by the replay's checks (null when it has none or has
 * not finished; a paused branch is judged when it finishes; the base once per trial set). Not stored: the
 * writer that ends the run saves them in the same transaction (saveVerdicts), so nobody who reads the run
 * ended reads it without them.
 */
export async function judgeRun(prisma: Db, replayId: string, result: ReplayResult): Promise<StoredVerdicts | null> {
  const row = await getReplayCounterfactual(prisma, replayId);
  if (!row) return null;
  const checks = z.array(NamedCheck).parse(row.checks ?? []);
  if (checks.length === 0 || !isTerminal(result.status)) return null;
  const judge = judgeFor(prisma, row.modelEndpointId);
  let base = row.trialSetId ? await siblingBaseVerdicts(prisma, row.trialSetId, replayId) : null;
  if (!base || base.length !== checks.length) {
    // Checks read tool calls' arguments and outputs, never a model call's input: the stored form serves.
    base = await evaluateChecks(checks, { steps: await sessionEventsCompact(prisma, row.sessionId) }, judge);
  }
  const branch = await evaluateChecks(checks, { steps: result.steps }, judge);
  return { base, branch };
}

export interface PresentedVerdict {
  checkId: string | null;
  name: string;
  kind: CheckVerdict["kind"];
  base: Omit<CheckVerdict, "checkId" | "name" | "kind"> | null;
  branch: Omit<CheckVerdict, "checkId" | "name" | "kind"> | null;
  /** "base failed → branch passed". */
  change: string;
}

const strip = (v: CheckVerdict | undefined) => {
  if (!v) return null;
  const { checkId: _c, name: _n, kind: _k, ...rest } = v;
  return rest;
};

export function presentVerdicts(checks: readonly NamedCheck[], stored: StoredVerdicts | null): PresentedVerdict[] {
  return checks.map((c, k) => {
    const base = stored?.base[k];
    const branch = stored?.branch[k];
    return {
      checkId: c.id ?? null,
      name: c.name,
      kind: c.definition.kind,
      base: strip(base),
      branch: strip(branch),
      change: verdictChange(base?.outcome ?? null, branch?.outcome ?? null),
    };
  });
}

export const ReplayCounterfactualInput = z.object({ replayId: z.string().min(1) });
export type ReplayCounterfactualInput = z.infer<typeof ReplayCounterfactualInput>;

/** What a replay response adds for counterfactuals: the fork point, the checks' verdicts and the trial set. */
export async function replayCounterfactual(principal: Principal, input: ReplayCounterfactualInput, prisma: Db) {
  authorize(principal, "replays.read");
  const row = await getReplayCounterfactual(prisma, input.replayId);
  if (!row) throw notFound("replay", input.replayId);
  const checks = z.array(NamedCheck).safeParse(row.checks ?? []);
  const evidence = row.evidence as Partial<Evidence> | null;
  return {
    fork: evidence?.fork ?? null,
    modelEndpointId: row.modelEndpointId,
    verdicts: presentVerdicts(checks.success ? checks.data : [], (row.verdicts as StoredVerdicts | null) ?? null),
    trialSet: row.trialSetId ? { id: row.trialSetId, index: row.trialIndex } : null,
  };
}

export const TrialSetInput = z.object({ trialSetId: z.string().min(1) });
export type TrialSetInput = z.infer<typeof TrialSetInput>;

/** A trial set: every trial's outcome and where it departed, the pass rate with its interval, and the per-step strip. */
export async function trialSetView(principal: Principal, input: TrialSetInput, prisma: Db) {
  authorize(principal, "replays.read");
  const trialSetId = input.trialSetId;
  const replays = await loadTrialSet(prisma, trialSetId);
  if (replays.length === 0) throw notFound("trial set", trialSetId);
  const first = replays[0]!;
  // The stored form: trials compare outputs, calls and results, never a model call's input.
  const base = await sessionEventsCompact(prisma, first.sessionId);
  const trials = replays.map((r) => {
    const stored = (r.verdicts as StoredVerdicts | null) ?? null;
    const branch = stored?.branch ?? [];
    const passed = isTerminal(r.status) ? runPassed(branch) : null;
    const steps = r.steps.map(toReplayStep);
    return {
      replay: r,
      passed,
      steps: trialSteps(steps, base),
      fork: (r.evidence as Partial<Evidence>)?.fork ?? null,
    };
  });
  // Settled: finished, or paused waiting for an analyst (nothing more happens without one).
  const settled = (status: string) => status !== "running" && status !== "queued";
  // Only settled trials count: one still queued or running has not reached the steps it has yet to run, which would
  // read as a departure there.
  const stats = trialStats(
    trials.filter((t) => settled(t.replay.status)),
    base.length,
  );
  const baseVerdicts =
    replays.map((r) => (r.verdicts as StoredVerdicts | null)?.base).find((v) => v !== undefined) ?? null;
  return {
    id: trialSetId,
    sessionId: first.sessionId,
    sessionTitle: first.session.title,
    policy: first.policySnapshot,
    policyHash: first.policyHash,
    /** The saved policy the trials ran under; null when they ran a preset or a document sent as it was. */
    savedPolicy: first.policyVersion
      ? {
          id: first.policyVersion.policy.id,
          name: first.policyVersion.policy.name,
          version: first.policyVersion.version,
        }
      : null,
    edits: first.edits,
    n: replays.length,
    finished: replays.filter((r) => settled(r.status)).length,
    basePassed: runPassed(baseVerdicts),
    stats,
    baseSteps: base.map((e) => ({ seq: e.seq, kind: e.kind, name: e.name })),
    trials: trials.map((t) => ({
      replayId: t.replay.id,
      index: t.replay.trialIndex,
      status: t.replay.status,
      passed: t.passed,
      fork: t.fork,
      settled: settled(t.replay.status),
      firstDivergence: settled(t.replay.status)
        ? firstDivergenceOf({ passed: t.passed, steps: t.steps }, base.length)
        : null,
    })),
  };
}

/**
 * What the replay form offers for counterfactuals: the model endpoints (names only) and the saved checks.
 * For a demo session the built-in demo model is offered after the configured ones; for any other it is not.
 */
export async function counterfactualFormOptions(principal: Principal, input: { sessionId?: string }, prisma: Db) {
  authorize(principal, "replays.read");
  const [modelEndpoints, checks, session] = await Promise.all([
    listModelEndpoints(prisma),
    listCheckRows(prisma, 200),
    input.sessionId ? sessionContext(prisma, input.sessionId) : null,
  ]);
  return {
    modelEndpoints: session?.demo ? [...modelEndpoints, { ...DEMO_MODEL }] : modelEndpoints,
    savedChecks: checks.map((c) => ({
      id: c.id,
      name: c.name,
      kind: CheckDefinition.safeParse(c.definition).data?.kind ?? "check",
    })),
  };
}
