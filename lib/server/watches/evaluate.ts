/**
 * Evaluating watches: each watch of an agent whose sessions arrived is evaluated at most once per window (the
 * claim moves its last evaluation in one conditional UPDATE, so two workers never both evaluate it), and each
 * condition met becomes a trigger with a key stored once per watch: the same trigger never fires twice.
 *
 * Sessions that arrive inside a watch's window are not dropped: the watch is marked as owing an evaluation
 * (owedSince, set by one caller only) and that caller queues one delayed evaluation for the window's end, so at
 * most one is pending per watch. A periodic sweep evaluates the watches whose window has passed and that owe one
 * (its job was lost) or whose condition moves with time alone (a cluster's growth).
 */
import type { Db } from "@/lib/db";
import { clusterById } from "@/lib/db/clusters";
import {
  checkName,
  claimEvaluation,
  clusterArrivals,
  clustersSince,
  insertTrigger,
  lastVerdicts,
  oweEvaluation,
  owedEvaluation,
  saveWatchState,
  triggerKeysSince,
  watchesByIds,
  watchesOfAgents,
  type TriggerRow,
  type WatchRow,
} from "@/lib/db/watches";
import { presentCluster } from "../clusters/cluster-shared";
import { regressionsToWatch } from "../clusters/regressions";
import { systemPrincipal } from "../principal";
import { presentWatch, type PresentedWatch, type WatchCondition } from "./watch-inputs";

const DAY_MS = 24 * 3600 * 1000;

/** A condition met: its key (once per watch), its sentence, its facts, and what an investigation would look at. */
export interface Firing {
  key: string;
  text: string;
  facts: Record<string, unknown>;
  /** The cluster whose failed sessions an investigation takes. */
  clusterId?: string;
  /** Or the check whose recent failures it takes. */
  failedCheckId?: string;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

async function clusterFacts(prisma: Db, clusterId: string) {
  const row = await clusterById(prisma, clusterId);
  if (!row) return null;
  const c = presentCluster(row);
  return { id: c.id, label: c.label, size: c.size, signature: c.signature, firstSeen: c.firstSeen };
}

/** The pass-rate condition remembers whether it is below, so one drop fires once and a recovery re-arms it. */
type PassRateState = { below?: boolean; episode?: number };

async function passRateFirings(
  prisma: Db,
  watch: WatchRow,
  c: Extract<WatchCondition, { kind: "check_pass_rate_below" }>,
) {
  const { passed, failed } = await lastVerdicts(prisma, watch.agentId, c.checkId, c.lastN);
  const judged = passed + failed;
  const state = (watch.state ?? {}) as PassRateState;
  // Fewer judged sessions than the window asks for: not yet a rate to judge by.
  if (judged < c.lastN) return [];
  const rate = passed / judged;
  const below = rate < c.threshold;
  const episode = (state.episode ?? 0) + (below && !state.below ? 1 : 0);
  await saveWatchState(prisma, watch.id, { below, episode });
  if (!below || state.below) return [];
  const name = (await checkName(prisma, c.checkId))?.name ?? c.checkId;
  return [
    {
      key: `below:${c.checkId}:${episode}`,
      text: `${name}'s pass rate over the last ${judged} sessions of ${watch.agent.name} is ${pct(rate)} (${passed} of ${judged}), below ${pct(c.threshold)}.`,
      facts: { check: { id: c.checkId, name }, lastN: judged, passed, failed, passRate: rate, threshold: c.threshold },
      failedCheckId: c.checkId,
    },
  ];
}

async function regressionFirings(prisma: Db, watch: WatchRow): Promise<Firing[]> {
  const r = await regressionsToWatch(systemPrincipal("watch"), watch.agentId, prisma);
  const out: Firing[] = [];
  for (const v of r.regressions) {
    const previous = r.versions.find((p) => p.version === v.previous);
    const grew = v.grew.slice(0, 3);
    out.push({
      key: `regression:${v.agentVersionId}`,
      text: `${watch.agent.name} ${v.version} regressed: pass rate ${pct(v.rate ?? 0)} (${v.passed} of ${v.total}), down from ${pct(previous?.rate ?? 0)} in ${v.previous}.${grew[0] ? ` Grew most: ${grew[0].label}.` : ""}`,
      facts: {
        version: v.version,
        previous: v.previous,
        passRate: v.rate,
        previousPassRate: previous?.rate ?? null,
        passed: v.passed,
        total: v.total,
        reasons: v.regression?.reasons ?? [],
        grew,
      },
      ...(grew[0] ? { clusterId: grew[0].clusterId } : {}),
    });
  }
  for (const check of r.checks)
    for (const v of check.versions.filter((x) => x.regression?.flagged))
      out.push({
        key: `regression:${check.checkId}:${v.agentVersionId}`,
        text: `${watch.agent.name} ${v.version} regressed on ${check.name}: pass rate ${pct(v.rate ?? 0)} (${v.passed} of ${v.total}), down from ${v.previous}.`,
        facts: {
          check: { id: check.checkId, name: check.name },
          version: v.version,
          previous: v.previous,
          passRate: v.rate,
        },
        failedCheckId: check.checkId,
      });
  return out;
}

/** What a watch's condition finds now (each with its key; already fired ones are dropped on insert). */
export async function conditionFirings(prisma: Db, row: WatchRow, now: Date): Promise<Firing[]> {
  const watch: PresentedWatch = presentWatch(row);
  const c = watch.condition;
  if (c.kind === "check_pass_rate_below") return passRateFirings(prisma, row, c);
  if (c.kind === "regression") return regressionFirings(prisma, row);
  if (c.kind === "new_cluster") {
    const out: Firing[] = [];
    for (const cluster of await clustersSince(prisma, row.agentId, row.createdAt)) {
      const facts = await clusterFacts(prisma, cluster.id);
      if (!facts) continue;
      out.push({
        key: `cluster:${cluster.id}`,
        text: `New failure cluster for ${row.agent.name}: "${facts.label}" (${facts.size} session${facts.size === 1 ? "" : "s"}).`,
        facts: { cluster: facts },
        clusterId: cluster.id,
      });
    }
    return out;
  }
  const since = new Date(now.getTime() - DAY_MS);
  const day = now.toISOString().slice(0, 10);
  // A cluster whose growth fired in the last 24 hours does not fire again for the same arrivals on the next day.
  const grown = new Set(
    (await triggerKeysSince(prisma, row.id, "growth:", since)).map((k) =>
      k.slice("growth:".length, k.lastIndexOf(":")),
    ),
  );
  const out: Firing[] = [];
  for (const g of await clusterArrivals(prisma, row.agentId, since, c.perDay)) {
    if (grown.has(g.clusterId)) continue;
    const facts = await clusterFacts(prisma, g.clusterId);
    if (!facts) continue;
    out.push({
      key: `growth:${g.clusterId}:${day}`,
      text: `Failure cluster "${facts.label}" of ${row.agent.name} grew by ${g.added} sessions in the last 24 hours (the watch's limit: ${c.perDay} a day).`,
      facts: { cluster: facts, added: g.added, perDay: c.perDay, since: since.toISOString() },
      clusterId: g.clusterId,
    });
  }
  return out;
}

export interface Fired {
  watch: WatchRow;
  trigger: TriggerRow;
  firing: Firing;
}

/** An evaluation owed at the end of a watch's window (marked since `since`): one delayed job to queue. */
export interface Owed {
  watchId: string;
  since: Date;
  due: Date;
}

export interface Evaluation {
  fired: Fired[];
  owed: Owed[];
}

/** Evaluates a claimed watch: the triggers that fired now (a key the watch fired before is not stored again). */
async function fire(prisma: Db, watch: WatchRow, now: Date): Promise<Fired[]> {
  const fired: Fired[] = [];
  for (const firing of await conditionFirings(prisma, watch, now)) {
    const trigger = await insertTrigger(prisma, {
      watchId: watch.id,
      key: firing.key,
      text: `Watch "${watch.name}": ${firing.text}`,
      facts: firing.facts,
      investigation: null,
      firedAt: now,
    });
    if (trigger) fired.push({ watch, trigger, firing });
  }
  return fired;
}

/**
 * Sessions of these agents arrived: each of their watches whose window allows it is evaluated now; one evaluated
 * inside its window owes an evaluation at the window's end (answered in `owed` to the one caller that marked it).
 */
export async function evaluateWatches(prisma: Db, agentIds: readonly string[], now = new Date()): Promise<Evaluation> {
  const out: Evaluation = { fired: [], owed: [] };
  for (const watch of await watchesOfAgents(prisma, agentIds)) {
    if (await claimEvaluation(prisma, watch.id, now)) {
      out.fired.push(...(await fire(prisma, watch, now)));
      continue;
    }
    const due = await oweEvaluation(prisma, watch.id, now);
    if (due) out.owed.push({ watchId: watch.id, since: now, due });
  }
  return out;
}

/**
 * The delayed evaluation owed since `since`: made when its window has passed and it is still owed (one made since
 * settled it: nothing to do); run early, it is owed again (answered in `owed`, to queue for the window's end).
 */
export async function evaluateOwed(prisma: Db, watchId: string, since: Date, now = new Date()): Promise<Evaluation> {
  const [watch] = await watchesByIds(prisma, [watchId]);
  if (!watch) return { fired: [], owed: [] };
  if (await claimEvaluation(prisma, watchId, now, since)) return { fired: await fire(prisma, watch, now), owed: [] };
  const owed = await owedEvaluation(prisma, watchId);
  const still = owed !== null && owed.since.getTime() === since.getTime();
  return { fired: [], owed: still ? [{ watchId, since, due: owed.due }] : [] };
}

/** The sweep's evaluations: each of these watches whose window has passed (none is owed after it). */
export async function evaluateSwept(prisma: Db, watchIds: readonly string[], now = new Date()): Promise<Evaluation> {
  const fired: Fired[] = [];
  for (const watch of await watchesByIds(prisma, watchIds))
    if (await claimEvaluation(prisma, watch.id, now)) fired.push(...(await fire(prisma, watch, now)));
  return { fired, owed: [] };
}
