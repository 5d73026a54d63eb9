import Link from "next/link";
import { Notice } from "@/components/ui/Notice";
import type { staleRecordingsUsed } from "@/lib/server/investigations/investigation-reads";

type StaleUsed = Awaited<ReturnType<typeof staleRecordingsUsed>>;

/** Warns that a branch rests on recordings its tools no longer answer the same way. */
export function StaleUsedNotice({ stale }: { stale: StaleUsed }) {
  if (!stale || stale.used.length === 0) return null;
  return (
    <Notice tone="warning" className="mb-6">
      <p data-testid="stale-used">
        This branch used {stale.used.length} recording{stale.used.length === 1 ? "" : "s"} that{" "}
        {stale.used.length === 1 ? "was" : "were"} stale when checked
        {stale.checkedAt ? ` on ${stale.checkedAt.slice(0, 10)}` : ""}:{" "}
        {stale.used.map((u) => `step ${u.seq} ${u.tool} (${u.paths.join(", ")})`).join("; ")}. Its result shows what the
        agent would do with the answers as recorded, not as the tools answer today.{" "}
        <Link href={`/investigations/${stale.investigationId}`} className="font-medium underline">
          See the check
        </Link>
      </p>
    </Notice>
  );
}
