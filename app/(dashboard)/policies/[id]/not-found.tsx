import Link from "next/link";
import { EmptyState } from "@/components/ui/EmptyState";
import { buttonClass } from "@/components/ui/Button";

export default function PolicyNotFound() {
  return (
    <EmptyState
      title="Policy not found"
      action={
        <Link href="/policies" className={buttonClass()}>
          All policies
        </Link>
      }
    >
      It may have been deleted, or the link is wrong. Open the list of policies, or create one there.
    </EmptyState>
  );
}
