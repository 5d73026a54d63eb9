import type { Metadata } from "next";
import { FormatReference } from "@/components/import/FormatReference";
import { Uploader } from "@/components/import/Uploader";
import { PageHeader } from "@/components/ui/PageHeader";
import { Notice } from "@/components/ui/Notice";
import { env } from "@/lib/env";
import { pageContext } from "@/lib/http/page";
import { can } from "@/lib/server/authz";

export const metadata: Metadata = { title: "Import" };
export const dynamic = "force-dynamic";

export default async function ImportPage() {
  const { BRANCHPOINT_MAX_IMPORT_BYTES, BRANCHPOINT_PUBLIC_URL } = env();
  const { principal } = await pageContext();
  if (!can(principal, "sessions.import")) {
    return (
      <>
        <PageHeader title="Import sessions" />
        <Notice tone="warning" testId="role-needed">
          Importing needs the analyst role; you are signed in as a {principal.role}. Ask an admin to change your role.
        </Notice>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Import sessions" subtitle="Upload recorded agent runs; each file gets its own result." />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <Uploader maxBytes={BRANCHPOINT_MAX_IMPORT_BYTES} />
        <FormatReference baseUrl={BRANCHPOINT_PUBLIC_URL ?? "http://<this-host>"} />
      </div>
    </>
  );
}
