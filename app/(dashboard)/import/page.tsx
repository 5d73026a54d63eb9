import type { Metadata } from "next";
import { FormatReference } from "@/components/import/FormatReference";
import { Uploader } from "@/components/import/Uploader";
import { PageHeader } from "@/components/ui/PageHeader";
import { env } from "@/lib/env";

export const metadata: Metadata = { title: "Import" };
export const dynamic = "force-dynamic";

export default function ImportPage() {
  const { BRANCHPOINT_MAX_BODY_BYTES, BRANCHPOINT_PUBLIC_URL } = env();
  return (
    <>
      <PageHeader title="Import sessions" subtitle="Upload recorded agent runs; each file gets its own result." />
      <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_24rem]">
        <Uploader maxBytes={BRANCHPOINT_MAX_BODY_BYTES} />
        <FormatReference baseUrl={BRANCHPOINT_PUBLIC_URL ?? "http://<this-host>"} />
      </div>
    </>
  );
}
