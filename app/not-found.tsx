import type { Metadata } from "next";
import { DashboardShell } from "@/components/ui/DashboardShell";
import { RecordNotFound } from "@/components/ui/RecordNotFound";
import { requestedRecordKind } from "@/lib/http/page";
import { signedInPrincipal } from "@/lib/http/principal";

export const metadata: Metadata = { title: "Not found" };

/** Unknown paths, and detail pages whose record does not exist (the dashboard layout's 404). */
export default async function NotFound() {
  const kind = await requestedRecordKind();
  const principal = await signedInPrincipal();
  return (
    <DashboardShell user={principal ? { name: principal.name, role: principal.role } : undefined}>
      <RecordNotFound kind={kind ?? "page"} />
    </DashboardShell>
  );
}
