/**
 * Watch work, as the operations queue it (lib/server/job-queue.ts) and the durable queue carries it
 * (lib/jobs/watch-queue.ts): evaluate the watches of agents whose sessions arrived, a watch's evaluation owed at its
 * window's end (queued to start then), the sweep's evaluations of watches whose window passed, deliver one webhook
 * attempt of a trigger, or look whether a trigger's investigations finished and write its draft report. It imports
 * nothing, so that both sides may share it (lib/jobs does not import lib/server).
 */
export type WatchJob =
  | { kind: "evaluate"; agentIds: string[] }
  | { kind: "owed"; watchId: string; owedSince: string }
  | { kind: "sweep"; watchIds: string[] }
  | { kind: "deliver"; triggerId: string; attempt: number }
  | { kind: "report"; triggerId: string; round: number };
