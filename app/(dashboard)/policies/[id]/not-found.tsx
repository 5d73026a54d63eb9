import Link from "next/link";
import { EmptyState } from "@/components/ui/EmptyState";

export default function PolicyNotFound() {
  return (
    <EmptyState
      title="Policy not found"
      action={
        <Link
          href="/policies"
          className="rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white hover:bg-indigo-500"
        >
          All policies
        </Link>
      }
    >
      It may have been deleted, or the link is wrong. Open the list of policies, or create one there.
    </EmptyState>
  );
}
