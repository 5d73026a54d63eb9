/**
 * The run of a durable probing job (an investigation, a smallest-fix search) under a lease it renews: the claim,
 * giving up after too many runs that ended without a result, the heartbeat that notices a takeover, the failure
 * stored in words, and the lease dropped when the run stops without finishing. What the run probes is the caller's.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "@/lib/db/client";
import { AppError, notFound } from "@/lib/errors";
import { runFailure } from "@/lib/run-failures";
import { authorize, type Permission } from "../authz";
import type { Principal } from "../principal";
import { runQueuedReplay } from "../replays/run-queued-replay";

export interface LeasedRunOptions {
  /** The lease owner (a worker's name); a run without one gets its own. */
  owner?: string;
  /** How long its lease lasts without a heartbeat; a worker killed mid-run is replaced after it. */
  leaseMs?: number;
  /** Runs that may end without a result (their worker stopped or crashed) before it is failed; 3 unless told. */
  maxAttempts?: number;
}

export type LeasedRunOutcome = "ran" | "busy" | "idle" | "lease_lost" | "gave_up";

/** A lease owner for work run in this process. */
export const inlineOwner = () => `inline:${process.pid}:${randomUUID()}`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs these replays here, one after another, each under a replay lease (one queued, or one whose worker is gone;
 * one another worker holds is left to it). False when the run's own lease went first.
 */
export async function runReplaysHere(
  prisma: Db,
  replayIds: readonly string[],
  leaseMs: number,
  lost: () => boolean,
): Promise<boolean> {
  for (const id of replayIds) {
    if (lost()) return false;
    await runQueuedReplay(prisma, id, { owner: inlineOwner(), leaseMs });
  }
  return true;
}

/**
 * Runs a probe's replays here until `ended` answers (not null): each round, those `replayIds` names run under
 * replay leases (one another worker holds is waited for, a quarter second between rounds). Null when the run's own
 * lease went first.
 */
export async function runReplaysUntil<T>(
  prisma: Db,
  leaseMs: number,
  lost: () => boolean,
  probe: { replayIds: () => readonly string[] | Promise<readonly string[]>; ended: () => Promise<T | null> },
): Promise<T | null> {
  for (;;) {
    if (!(await runReplaysHere(prisma, await probe.replayIds(), leaseMs, lost))) return null;
    const ended = await probe.ended();
    if (ended !== null) return ended;
    if (lost()) return null;
    await sleep(250);
  }
}

/** This run no longer holds its row (another worker took it over): it stores nothing more. */
export class LeaseLost extends Error {
  constructor(label: string, id: string) {
    super(`${label} ${id} was taken over by another worker.`);
    this.name = "LeaseLost";
  }
}

type End<S extends string> = { status: S | "failed"; probes: unknown; result: unknown; error?: unknown };

/** The row's lease operations (lib/db), each fenced by the owner. */
export interface LeaseStore<C extends { kind: "claimed"; attempts: number; probes: unknown }, S extends string> {
  claim: (client: Db, id: string, owner: string, leaseMs: number) => Promise<C | { kind: "busy" | "idle" }>;
  renew: (client: Db, id: string, owner: string, leaseMs: number) => Promise<boolean>;
  save: (
    client: Db,
    id: string,
    owner: string,
    probes: unknown,
  ) => Promise<{ held: boolean; cancelRequested: boolean }>;
  finish: (client: Db, id: string, owner: string, end: End<S>) => Promise<boolean>;
  release: (client: Db, id: string, owner: string) => Promise<void>;
}

/** What a claimed run is given. */
export interface LeasedRun<C, P, S extends string> {
  id: string;
  owner: string;
  leaseMs: number;
  claim: C;
  /** The probes an earlier run finished. */
  earlier: P[];
  /** The probes so far (the earlier ones first); stored with a failure. */
  records: P[];
  /** The lease is gone (found on saving, or by the heartbeat). */
  gone: () => boolean;
  /** What a run throws on finding its lease gone: LeaseLost, naming the row. */
  lost: () => LeaseLost;
  /** Stores the records; answers whether a cancel was asked for. */
  save: () => Promise<boolean>;
  /** Ends the row: `ran`, or `lease_lost` when the lease was gone (nothing written). */
  finish: (end: End<S>) => Promise<"ran" | "lease_lost">;
}

export interface LeasedRunSpec<C extends { kind: "claimed"; attempts: number; probes: unknown }, P, S extends string> {
  store: LeaseStore<C, S>;
  /** How logs and errors name the row ("Investigation"), and how a failure's words do ("investigation"). */
  label: string;
  noun: string;
  run: (run: LeasedRun<C, P, S>) => Promise<LeasedRunOutcome>;
}

/** A kind of leased row (investigations, smallest-fix searches): its lease and names, who may run one and its read. */
export interface LeasedKind<
  R,
  C extends { kind: "claimed"; attempts: number; probes: unknown },
  S extends string,
> extends Omit<LeasedRunSpec<C, unknown, S>, "run"> {
  permission: Permission;
  find: (prisma: Db, id: string) => Promise<R | null>;
}

/**
 * Runs the row `id` names under its lease (runLeased), for a principal who may: 404 (by the kind's noun) when
 * there is no such row.
 */
export async function runLeasedRow<
  R extends { id: string },
  C extends { kind: "claimed"; attempts: number; probes: unknown },
  P,
  S extends string,
>(
  principal: Principal,
  prisma: Db,
  id: string,
  opts: LeasedRunOptions,
  kind: LeasedKind<R, C, S>,
  run: (row: R, leased: LeasedRun<C, P, S>) => Promise<LeasedRunOutcome>,
): Promise<LeasedRunOutcome> {
  authorize(principal, kind.permission);
  const row = await kind.find(prisma, id);
  if (!row) throw notFound(kind.noun, id);
  return runLeased<C, P, S>(prisma, row.id, opts, {
    store: kind.store,
    label: kind.label,
    noun: kind.noun,
    run: (leased) => run(row, leased),
  });
}

/**
 * Claims the row and runs it under a lease it renews, like a replay's: a worker killed mid-run stops renewing it,
 * and the run that takes over (after the lease ran out) goes on from the probes stored. One that keeps taking its
 * worker down is failed after `maxAttempts` runs, its finished probes kept. A refusal met on the way fails the run
 * with its own code (the API's); anything else with the run's failure.
 */
export async function runLeased<C extends { kind: "claimed"; attempts: number; probes: unknown }, P, S extends string>(
  prisma: Db,
  id: string,
  opts: LeasedRunOptions,
  spec: LeasedRunSpec<C, P, S>,
): Promise<LeasedRunOutcome> {
  const { store, label } = spec;
  const owner = opts.owner ?? inlineOwner();
  const leaseMs = opts.leaseMs ?? 30_000;
  const claim = await store.claim(prisma, id, owner, leaseMs);
  if (claim.kind !== "claimed") return claim.kind;
  const earlier = (Array.isArray(claim.probes) ? claim.probes : []) as P[];
  const maxAttempts = opts.maxAttempts ?? 3;
  if (claim.attempts > maxAttempts) {
    await store.finish(prisma, id, owner, {
      status: "failed",
      probes: earlier,
      result: null,
      error: runFailure(
        "gave_up",
        `Stopped after ${maxAttempts} attempts: each run ended without a result (its worker stopped or crashed). The probes it finished are kept.`,
      ),
    });
    return "gave_up";
  }
  let leaseLost = false;
  let lostOnSave = false;
  const heartbeat = setInterval(
    () => {
      store.renew(prisma, id, owner, leaseMs).then(
        (held) => {
          if (!held) leaseLost = true;
        },
        (error: unknown) => console.error(`${label} ${id}: heartbeat failed:`, error),
      );
    },
    Math.max(250, Math.floor(leaseMs / 3)),
  );
  const records: P[] = [...earlier];
  const finish = async (end: End<S>) =>
    !lostOnSave && (await store.finish(prisma, id, owner, end)) ? ("ran" as const) : ("lease_lost" as const);
  const run: LeasedRun<C, P, S> = {
    id,
    owner,
    leaseMs,
    claim,
    earlier,
    records,
    gone: () => lostOnSave || leaseLost,
    lost: () => new LeaseLost(label, id),
    save: async () => {
      const saved = await store.save(prisma, id, owner, records);
      if (!saved.held) lostOnSave = true;
      return saved.cancelRequested;
    },
    finish,
  };
  let outcome: LeasedRunOutcome | undefined;
  try {
    outcome = await spec.run(run);
    return outcome;
  } catch (error) {
    if (error instanceof LeaseLost) outcome = "lease_lost";
    else {
      const message =
        error instanceof AppError ? error.message : `The ${spec.noun} could not go on: ${(error as Error).message}`;
      if (!(error instanceof AppError)) console.error(`${label} ${id} failed:`, error);
      outcome = await finish({
        status: "failed",
        probes: records,
        result: null,
        error: error instanceof AppError ? { code: error.code, message } : runFailure("investigation_failed", message),
      });
    }
    return outcome;
  } finally {
    clearInterval(heartbeat);
    // A run that lost its lease leaves the row to the worker that took it over.
    if (outcome !== "lease_lost" && !leaseLost) await store.release(prisma, id, owner).catch(() => undefined);
  }
}
