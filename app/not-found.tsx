import type { Metadata } from "next";
import { DashboardShell } from "@/components/ui/DashboardShell";
import { RecordNotFound } from "@/components/ui/RecordNotFound";
import { requestedRecordKind } from "@/lib/http/page";

export const metadata: Metadata = { title: "Not found" };

/** Unknown paths, and detail pages whose record does not exist (the dashboard layout's 404). */
export default async function NotFound() {
  const kind = await requestedRecordKind();
  return (
    <DashboardShell>
      <RecordNotFound kind={kind ?? "page"} />
    </DashboardShell>
  );
}
