/**
 * A watch's investigate action: up to K failed sessions of the trigger's cluster (or the check's latest failures)
 * each get a blame search, started through the investigations' own path (queued, run on behalf of the watch's
 * author, within the bound shown when the watch was saved); a job looks back until they finished, then writes a
 * draft report gathering each session's deciding step, with the first decided search as its evidence.
 */
import type { Db } from "@/lib/db";
import { clusterById } from "@/lib/db/clusters";
import { findInvestigation } from "@/lib/db/investigations";
import { sessionLabel } from "@/lib/db/report-evidence";
import { stepOutlines } from "@/lib/db/session-reads";
import {
  checkByName,
  findTrigger,
  recentFailsOf,
  recentMembers,
  saveTriggerInvestigation,
  type TriggerRow,
  type WatchRow,
} from "@/lib/db/watches";
import { AppError } from "@/lib/errors";
import { presentInvestigation, type InvestigationView } from "../investigations/investigations";
import { startInvestigation } from "../investigations/run-investigation";
import type { QueueDeps } from "../job-queue";
import { systemPrincipal } from "../principal";
import { stepWords } from "@/lib/reports/step-words";
import { addReportEvidence, createReport } from "../reports/reports";
import type { Firing } from "./evaluate";
import { presentWatch } from "./watch-inputs";

/** Look-backs before the report job stops waiting (at REPORT_POLL_MS apart: six hours). */
const REPORT_ROUNDS = 720;
export const REPORT_POLL_MS = 30_000;

export interface TriggerInvestigation {
  status: "investigating" | "reported" | "skipped" | "failed";
  checkId: string | null;
  investigationIds: string[];
  /** Sessions whose search could not start, and why. */
  refused: { sessionId: string; reason: string }[];
  reportId: string | null;
  error: string | null;
}

const principalOf = (watch: WatchRow) => systemPrincipal(watch.createdBy ?? "watch");

/** The check a blame search judges by: the action's, else the watch's, else the cluster's failing check. */
async function blameCheck(prisma: Db, watch: WatchRow, firing: Firing): Promise<string | null> {
  const w = presentWatch(watch);
  if (w.actions.investigate?.checkId) return w.actions.investigate.checkId;
  if (w.condition.kind === "check_pass_rate_below") return w.condition.checkId;
  if (firing.failedCheckId) return firing.failedCheckId;
  if (!firing.clusterId) return null;
  const cluster = await clusterById(prisma, firing.clusterId);
  return cluster?.check ? ((await checkByName(prisma, cluster.check))?.id ?? null) : null;
}

/** Starts the blame searches of a trigger; answers whether a report job should look back. */
export async function startTriggerInvestigation(
  prisma: Db,
  watch: WatchRow,
  trigger: TriggerRow,
  firing: Firing,
  deps: QueueDeps = {},
): Promise<boolean> {
  const action = presentWatch(watch).actions.investigate;
  if (!action) return false;
  const state: TriggerInvestigation = {
    status: "investigating",
    checkId: await blameCheck(prisma, watch, firing),
    investigationIds: [],
    refused: [],
    reportId: null,
    error: null,
  };
  const sessionIds = firing.clusterId
    ? await recentMembers(prisma, firing.clusterId, action.maxSessions)
    : firing.failedCheckId
      ? await recentFailsOf(prisma, watch.agentId, firing.failedCheckId, action.maxSessions)
      : [];
  if (!state.checkId || sessionIds.length === 0) {
    state.status = "skipped";
    state.error = !state.checkId
      ? "No check to judge a fix by: name one in the watch's investigate action (checkId)."
      : "No failed session to investigate.";
    await saveTriggerInvestigation(prisma, trigger.id, state);
    return false;
  }
  // Stored before the searches start: a search that runs in this call (no queue) finds the trigger investigating.
  await saveTriggerInvestigation(prisma, trigger.id, state);
  for (const sessionId of sessionIds) {
    try {
      const created = await startInvestigation(
        principalOf(watch),
        { kind: "blame", sessionId, checks: [state.checkId], trials: action.trials, share: 0.5 },
        prisma,
        deps,
      );
      state.investigationIds.push(created.id);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      state.refused.push({ sessionId, reason: error.message });
    }
    await saveTriggerInvestigation(prisma, trigger.id, state);
  }
  if (state.investigationIds.length === 0) {
    state.status = "failed";
    state.error = `No blame search could start: ${state.refused[0]?.reason ?? "unknown"}`;
    await saveTriggerInvestigation(prisma, trigger.id, state);
    return false;
  }
  return true;
}

type Decision = { kind?: string; baseSeq?: number; modelStep?: number; replayId?: string | null };
/** A blame search's result as stored (decided, with its step and fixing branch, or not). */
const decision = (result: unknown): Decision => (result && typeof result === "object" ? result : {});

/** One line per investigated session: its deciding step, named. */
async function decidingLine(prisma: Db, inv: InvestigationView): Promise<string> {
  const session = (await sessionLabel(prisma, inv.sessionId)) ?? { id: inv.sessionId, label: inv.sessionId };
  const r = decision(inv.result);
  const head = `- Session "${session.label}" (${session.id}):`;
  if (inv.status !== "completed")
    return `${head} the blame search ${inv.status}${inv.error ? `: ${inv.error.message}` : ""}.`;
  if (r.kind !== "decided" || typeof r.baseSeq !== "number")
    return `${head} not fixable by running the model again from any step (the failure is not decided by a model step).`;
  const [step] = await stepOutlines(prisma, inv.sessionId, [r.baseSeq]);
  const words = step ? ` (${stepWords(step)})` : "";
  return `${head} deciding step ${r.baseSeq}${words}, model step ${(r.modelStep ?? 0) + 1}; blame search ${inv.id}.`;
}

/**
 * Looks at a trigger's blame searches: while any runs, answers true (look again later); once all ended, writes the
 * draft report (from the first decided search's fixing branch, else any probe's replay) and answers false.
 */
export async function reportWhenFinished(prisma: Db, triggerId: string, round: number): Promise<boolean> {
  const trigger = await findTrigger(prisma, triggerId);
  const state = trigger?.investigation as TriggerInvestigation | null | undefined;
  if (!trigger || !state || state.status !== "investigating") return false;
  const rows = await Promise.all(state.investigationIds.map((id) => findInvestigation(prisma, id)));
  const invs = rows.filter((r) => r !== null).map(presentInvestigation);
  if (invs.some((i) => i.status === "queued" || i.status === "running")) {
    if (round < REPORT_ROUNDS) return true;
    await saveTriggerInvestigation(prisma, triggerId, {
      ...state,
      status: "failed",
      error: "Stopped waiting for the blame searches after six hours; they are on the investigations page.",
    });
    return false;
  }
  const decided = invs.find((i) => decision(i.result).kind === "decided");
  const replayId =
    (decided ? (decision(decided.result).replayId ?? null) : null) ||
    invs.flatMap((i) => i.probes.flatMap((p) => ("replayIds" in p ? p.replayIds : [])))[0] ||
    null;
  if (!replayId) {
    await saveTriggerInvestigation(prisma, triggerId, {
      ...state,
      status: "failed",
      error: "No blame search ran a replay, so there is nothing to write a report from.",
    });
    return false;
  }
  const lines = await Promise.all(invs.map((i) => decidingLine(prisma, i)));
  const principal = principalOf(trigger.watch);
  const report = await createReport(
    principal,
    {
      replayId,
      title: trigger.text.slice(0, 200),
      sections: {
        finding: "",
        hypothesis: "",
        validityNote: "",
        pinnedPairs: [],
        scope: `Opened by a watch on ${trigger.watch.agent.name}: ${trigger.text}\n\nBlame searches on ${invs.length} failed session${invs.length === 1 ? "" : "s"}${state.refused.length > 0 ? ` (${state.refused.length} could not start)` : ""}.`,
        observedBaseline: `Deciding steps:\n${lines.join("\n")}`,
        nextActions: "Check the deciding steps, write the Finding, then publish.",
      },
    },
    prisma,
  );
  if (decided && decided.status === "completed")
    await addReportEvidence(principal, { reportId: report.id, investigationId: decided.id }, prisma);
  await saveTriggerInvestigation(prisma, triggerId, { ...state, status: "reported", reportId: report.id });
  return false;
}
