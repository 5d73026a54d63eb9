import Link from "next/link";
import { EmptyState } from "@/components/ui/EmptyState";

export default function ReportNotFound() {
  return (
    <EmptyState
      title="Report not found"
      action={
        <Link href="/reports" className="text-sm font-medium text-indigo-700 hover:underline">
          All reports →
        </Link>
      }
    >
      No report has this id. It may have been deleted.
    </EmptyState>
  );
}
