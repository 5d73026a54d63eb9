/** What a watch is made of, as callers send it (zod), and as the API and the page show it. */
import { z } from "zod";
import type { WatchRow } from "@/lib/db/watches";

const Id = z.string().min(1).max(64);

/** Most sessions one watch's investigation takes, and most trials per probe (each is many replays). */
export const MAX_INVESTIGATED_SESSIONS = 20;
export const MAX_WATCH_TRIALS = 5;

export const WatchCondition = z.discriminatedUnion(
  "kind",
  [
    z.strictObject({
      kind: z.literal("check_pass_rate_below"),
      /** A saved check attached to the agent as an online check (its stored verdicts are counted). */
      checkId: Id,
      /** The last N judged sessions of the agent. */
      lastN: z.number().int().min(1).max(10_000),
      /** A share from 0 to 1: fires when the pass rate over the last N is below it. */
      threshold: z
        .number()
        .gt(0, "The threshold is a share above 0 (0.9 for 90%).")
        .max(1, "The threshold is at most 1."),
    }),
    z.strictObject({ kind: z.literal("new_cluster") }),
    z.strictObject({
      kind: z.literal("cluster_growth"),
      /** Fires for a cluster that took at least this many new sessions in the last 24 hours. */
      perDay: z.number().int().min(1).max(1_000_000),
    }),
    z.strictObject({ kind: z.literal("regression") }),
  ],
  { error: "Choose what to watch: check_pass_rate_below, new_cluster, cluster_growth or regression." },
);
export type WatchCondition = z.infer<typeof WatchCondition>;

export const WatchActions = z
  .strictObject({
    webhook: z
      .strictObject({
        url: z
          .string()
          .max(2000)
          .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), "Write an http:// or https:// URL."),
      })
      .optional(),
    investigate: z
      .strictObject({
        /** Up to K failed sessions of the cluster get a blame search each. */
        maxSessions: z.number().int().min(1).max(MAX_INVESTIGATED_SESSIONS),
        /** The check the blame searches judge by; else the watch's check, else the cluster's failing check. */
        checkId: Id.optional(),
        trials: z.number().int().min(1).max(MAX_WATCH_TRIALS).default(1),
      })
      .optional(),
  })
  .refine((a) => a.webhook !== undefined || a.investigate !== undefined, {
    message: "Give the watch an action: a webhook, an investigation, or both.",
    path: ["webhook"],
  });
export type WatchActions = z.infer<typeof WatchActions>;

const watchFields = {
  agentId: Id.optional(),
  agentName: z.string().min(1).max(200).optional(),
  name: z.string().trim().min(1, "Name the watch.").max(200),
  condition: WatchCondition,
  actions: WatchActions,
  /** Evaluated at most once per window (seconds; an hour unless told). */
  windowSeconds: z
    .number()
    .int()
    .min(1)
    .max(7 * 24 * 3600)
    .default(3600),
};

/** `POST /api/v1/watches`' body. */
export const CreateWatchInput = z
  .strictObject(watchFields)
  .refine((v) => (v.agentId === undefined) !== (v.agentName === undefined), {
    message: "Name the agent by agentId or by agentName (one of them).",
    path: ["agentId"],
  });
export type CreateWatchInput = z.infer<typeof CreateWatchInput>;

export const ListWatchesInput = z
  .strictObject({ agentId: Id.optional(), agentName: z.string().min(1).max(200).optional() })
  .refine((v) => v.agentId === undefined || v.agentName === undefined, {
    message: "Name the agent by agentId or by agentName, not both.",
    path: ["agentId"],
  });
export type ListWatchesInput = z.infer<typeof ListWatchesInput>;

export const WatchRef = z.strictObject({ watchId: Id });
export type WatchRef = z.infer<typeof WatchRef>;

/** The bound on what the investigate action may run, computed when the watch is saved. */
export interface WatchCostBound {
  sessions: number;
  trials: number;
  /** Model steps of the agent's longest session when saved: what bounds each search's probes. */
  modelSteps: number;
  probesPerSession: number;
  replays: number;
  maxLiveCalls: number;
  text: string;
}

export function presentWatch(row: WatchRow) {
  return {
    id: row.id,
    name: row.name,
    agentId: row.agentId,
    agentName: row.agent.name,
    condition: { kind: row.kind, ...(row.condition as object) } as WatchCondition,
    actions: row.actions as WatchActions,
    costBound: (row.costBound ?? null) as WatchCostBound | null,
    windowSeconds: row.windowSeconds,
    lastEvaluatedAt: row.lastEvaluatedAt?.toISOString() ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
  };
}
export type PresentedWatch = ReturnType<typeof presentWatch>;
