import type { Metadata } from "next";
import { AttachCheckForm } from "@/components/checks/AttachCheckForm";
import { OnlineCheckAttachments } from "@/components/checks/OnlineCheckAttachments";
import { CHECK_KINDS, describeCheck } from "@/components/checks/describe";
import { RefreshWhileRunning } from "@/components/investigations/RefreshWhileRunning";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { CheckDefinition } from "@/lib/replay";
import { can } from "@/lib/server/authz";
import { getOnlineCheck } from "@/lib/server/checks/online";
import { listClusterAgents } from "@/lib/server/clusters/clusters";

export const metadata: Metadata = { title: "Outcome check" };
export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

/** One outcome check: the agents it judges online, their verdicts, backfills and budget. */
export default async function CheckPage({ params }: Props) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const data = await orNotFound(getOnlineCheck(principal, { checkId: id }, prisma));
  const agents = await listClusterAgents(principal, {}, prisma);
  const definition = CheckDefinition.safeParse(data.check.definition);
  const canWrite = can(principal, "checks.write");
  const running = data.attachments.some((a) => a.backfill.status === "queued" || a.backfill.status === "running");
  return (
    <>
      <PageHeader
        title={data.check.name}
        subtitle={`${CHECK_KINDS[data.kind]}: ${definition.success ? describeCheck(definition.data) : "no longer valid"}`}
        breadcrumbs={[{ href: "/checks", label: "Outcome checks" }]}
      />
      <RefreshWhileRunning running={running} />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_minmax(0,24rem)]">
        <div className="flex min-w-0 flex-col gap-4">
          <OnlineCheckAttachments data={data} canWrite={canWrite} />
          {data.detachedVerdicts > 0 ? (
            <p className="text-xs text-slate-600">
              {data.detachedVerdicts} more verdict{data.detachedVerdicts === 1 ? "" : "s"} from agents it is no longer
              attached to are kept.
            </p>
          ) : null}
        </div>
        {canWrite ? (
          <AttachCheckForm checkId={data.check.id} judge={data.kind === "llm_judge"} agents={agents} />
        ) : null}
      </div>
    </>
  );
}
