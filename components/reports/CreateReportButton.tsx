import Link from "next/link";
import { buttonClass } from "@/components/ui/Button";

/**
 * "Create report" for a replay's comparison: drop it on /replays/[id]/compare.
 * A replay that has not finished cannot be reported on; the button says why.
 */
export function CreateReportButton({ replayId, finished = true }: { replayId: string; finished?: boolean }) {
  if (!finished) {
    return (
      <span
        aria-disabled="true"
        title="A report needs a finished replay: supply the pending fixture or approval first."
        className="inline-flex cursor-not-allowed items-center rounded-md border border-slate-200 bg-slate-100 px-3 py-1.5 text-sm font-medium text-slate-400"
      >
        Create report
      </span>
    );
  }
  return (
    <Link href={`/reports/new?replayId=${encodeURIComponent(replayId)}`} className={buttonClass()}>
      Create report
    </Link>
  );
}
