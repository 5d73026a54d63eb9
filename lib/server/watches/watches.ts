/**
 * Watches: saving one (its webhook URL checked against the executors' allow-list and address rules, its
 * investigation's cost bound computed and shown), listing, deleting, and each one's webhook deliveries.
 */
import type { Db } from "@/lib/db";
import { allowedHosts } from "@/lib/db/executors";
import {
  checkName,
  deleteWatchRow,
  deliveriesOf,
  findWatch,
  insertWatch,
  listWatchRows,
  maxModelSteps,
  triggersOf,
} from "@/lib/db/watches";
import { checkDestination, OutboundRefused, type Resolver } from "@/lib/executors/outbound";
import { AppError, notFound } from "@/lib/errors";
import { blameProbeBound } from "@/lib/replay";
import { authorize } from "../authz";
import { resolveAgent } from "../clusters/cluster-shared";
import { blameLiveBudget, MAX_INVESTIGATION_REPLAYS } from "../investigations/investigations";
import type { Principal } from "../principal";
import {
  presentWatch,
  type CreateWatchInput,
  type ListWatchesInput,
  type WatchActions,
  type WatchCostBound,
  type WatchRef,
} from "./watch-inputs";

/** At most K sessions, each a blame search of at most `probes × trials` replays over the agent's longest session. */
export function watchCostBound(action: NonNullable<WatchActions["investigate"]>, modelSteps: number): WatchCostBound {
  const steps = Math.max(modelSteps, 1);
  const probesPerSession = blameProbeBound(steps);
  const perSession = Math.min(probesPerSession * action.trials, MAX_INVESTIGATION_REPLAYS);
  const replays = perSession * action.maxSessions;
  const maxLiveCalls = replays * blameLiveBudget(steps);
  const s = (n: number, word: string, plural = `${word}s`) => `${n} ${n === 1 ? word : plural}`;
  return {
    sessions: action.maxSessions,
    trials: action.trials,
    modelSteps: steps,
    probesPerSession,
    replays,
    maxLiveCalls,
    text: `Each trigger runs at most ${s(action.maxSessions, "blame search", "blame searches")} of at most ${s(perSession, "replay")} each: ${s(replays, "replay")} and ${s(maxLiveCalls, "live model call")} in all (the agent's longest session has ${s(steps, "model step")}).`,
  };
}

/** 400 naming why a webhook URL may not be called (not allow-listed, or a private address nobody allowed). */
export async function refuseUnsafeWebhook(prisma: Db, url: string, resolve?: Resolver): Promise<void> {
  try {
    await checkDestination(new URL(url), await allowedHosts(prisma), resolve);
  } catch (error) {
    if (!(error instanceof OutboundRefused)) throw error;
    throw new AppError(
      "invalid_input",
      `The webhook cannot be saved: ${error.message} Add its host under Settings → Executors first.`,
      // The field says why (the form shows a field's issues, not the whole message).
      [{ path: "actions.webhook.url", message: error.message }],
    );
  }
}

/** Saves a watch (201). 404 for an unknown agent or check; 400 for a webhook URL that may not be called. */
export async function createWatch(
  principal: Principal,
  input: CreateWatchInput,
  prisma: Db,
  deps: { resolve?: Resolver } = {},
) {
  authorize(principal, "clusters.write");
  if (input.actions.investigate) authorize(principal, "investigations.run");
  const agent = await resolveAgent(prisma, input);
  const { kind, ...condition } = input.condition;
  if ("checkId" in condition && !(await checkName(prisma, condition.checkId)))
    throw notFound("check", condition.checkId, "condition.checkId");
  const investigate = input.actions.investigate;
  if (investigate?.checkId && !(await checkName(prisma, investigate.checkId)))
    throw notFound("check", investigate.checkId, "actions.investigate.checkId");
  if (input.actions.webhook) await refuseUnsafeWebhook(prisma, input.actions.webhook.url, deps.resolve);
  const costBound = investigate ? watchCostBound(investigate, await maxModelSteps(prisma, agent.id)) : null;
  const row = await insertWatch(prisma, {
    agentId: agent.id,
    name: input.name,
    kind,
    condition,
    actions: input.actions,
    costBound,
    windowSeconds: input.windowSeconds,
    createdBy: principal.name,
  });
  return presentWatch(row);
}

/** Watches, newest first (one agent's when named). */
export async function listWatches(principal: Principal, input: ListWatchesInput, prisma: Db) {
  authorize(principal, "clusters.read");
  const agent = input.agentId !== undefined || input.agentName !== undefined ? await resolveAgent(prisma, input) : null;
  return (await listWatchRows(prisma, agent?.id)).map(presentWatch);
}

async function watchOr404(prisma: Db, watchId: string) {
  const row = await findWatch(prisma, watchId);
  if (!row) throw notFound("watch", watchId);
  return row;
}

/** Deletes a watch with its triggers and delivery log; the investigations and reports it made stay. */
export async function deleteWatch(principal: Principal, input: WatchRef, prisma: Db) {
  authorize(principal, "clusters.write");
  await watchOr404(prisma, input.watchId);
  await deleteWatchRow(prisma, input.watchId);
  return { deleted: { id: input.watchId } };
}

/** A watch's webhook attempts, newest first, and its triggers with their investigations. */
export async function watchDeliveries(principal: Principal, input: WatchRef, prisma: Db) {
  authorize(principal, "clusters.read");
  const watch = presentWatch(await watchOr404(prisma, input.watchId));
  const [deliveries, triggers] = await Promise.all([deliveriesOf(prisma, watch.id), triggersOf(prisma, watch.id)]);
  return {
    watch,
    deliveries: deliveries.map((d) => ({
      id: d.id,
      triggerId: d.triggerId,
      triggerKey: d.trigger.key,
      text: d.trigger.text,
      attempt: d.attempt,
      status: d.status as "sending" | "delivered" | "failed" | "refused",
      httpStatus: d.httpStatus,
      error: d.error,
      /** Set when the attempt was sent again after its first send's outcome was lost. */
      note: d.note,
      at: d.at.toISOString(),
    })),
    triggers: triggers.map((t) => ({
      id: t.id,
      key: t.key,
      text: t.text,
      facts: t.facts,
      investigation: t.investigation ?? null,
      firedAt: t.firedAt.toISOString(),
    })),
  };
}
