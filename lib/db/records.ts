/** Whether a record a page is about exists: one indexed lookup, nothing loaded. */
import type { DbClient } from "./client";

/** What a detail page (`/sessions/<id>`, `/replays/<id>`…) shows. */
export type RecordKind =
  | "session"
  | "replay"
  | "policy"
  | "report"
  | "experiment"
  | "trials"
  | "investigation"
  | "cluster"
  | "check"
  | "reviewQueue"
  | "dataset";

export async function recordExists(client: DbClient, kind: RecordKind, id: string): Promise<boolean> {
  const where = { id };
  switch (kind) {
    case "session":
      return (await client.session.count({ where })) > 0;
    case "replay":
      return (await client.replay.count({ where })) > 0;
    case "policy":
      return (await client.policy.count({ where })) > 0;
    case "report":
      return (await client.report.count({ where })) > 0;
    case "experiment":
      return (await client.experiment.count({ where })) > 0;
    case "trials":
      return (await client.replay.count({ where: { trialSetId: id } })) > 0;
    case "investigation":
      return (await client.investigation.count({ where })) > 0;
    case "cluster":
      return (await client.failureCluster.count({ where })) > 0;
    case "check":
      return (await client.check.count({ where })) > 0;
    case "reviewQueue":
      return (await client.reviewQueue.count({ where })) > 0;
    case "dataset":
      return (await client.dataset.count({ where })) > 0;
  }
}
