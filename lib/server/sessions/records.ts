/** Whether the record a detail page shows exists, for the principal who asks (one indexed lookup). */
import type { Db } from "@/lib/db";
import { recordExists, type RecordKind } from "@/lib/db/records";
import { authorize, type Permission } from "../authz";
import type { Principal } from "../principal";

const READ: Record<RecordKind, Permission> = {
  session: "sessions.read",
  replay: "replays.read",
  policy: "policies.read",
  report: "reports.read",
  experiment: "experiments.read",
  trials: "replays.read",
  investigation: "investigations.read",
  cluster: "clusters.read",
  check: "checks.read",
  reviewQueue: "sessions.read",
  dataset: "datasets.read",
};

export async function recordFound(
  principal: Principal,
  input: { kind: RecordKind; id: string },
  prisma: Db,
): Promise<boolean> {
  authorize(principal, READ[input.kind]);
  return recordExists(prisma, input.kind, input.id);
}
