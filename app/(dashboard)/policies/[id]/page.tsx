import type { Metadata } from "next";
import Link from "next/link";
import { PolicyEditor } from "@/components/policies/PolicyEditor";
import { Badge } from "@/components/ui/Badge";
import { PageHeader } from "@/components/ui/PageHeader";
import { orNotFound, pageContext } from "@/lib/http/page";
import { getPolicyForEditor } from "@/lib/server/policies/policies";
import { plainPolicy, Policy, policyJsonSchema } from "@/lib/replay";

export const metadata: Metadata = { title: "Policy" };
export const dynamic = "force-dynamic";

export default async function PolicyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { principal, prisma } = await pageContext();
  const { policy, agent, tools, calls } = await orNotFound(getPolicyForEditor(principal, { policyId: id }, prisma));
  const latest = policy.versions[0];
  const document = latest ? Policy.safeParse(latest.document) : null;
  return (
    <>
      <PageHeader
        title={policy.name}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <Link href="/policies" className="text-indigo-700 hover:underline">
              Policies
            </Link>
            <span>·</span>
            {policy.agent ? (
              <span>
                for {policy.agent.name} <Badge>{policy.agent.adapter}</Badge>
              </span>
            ) : (
              <span>no agent</span>
            )}
            <span>·</span>
            <span>
              {policy.versions.length} version{policy.versions.length === 1 ? "" : "s"}
            </span>
          </span>
        }
      />
      <PolicyEditor
        key={policy.id}
        policyId={policy.id}
        name={policy.name}
        agent={agent}
        tools={tools}
        saved={
          latest && document?.success
            ? { version: latest.version, hash: latest.hash, document: plainPolicy(document.data) }
            : null
        }
        schema={policyJsonSchema()}
        calls={calls}
      />
    </>
  );
}
