import { EmptyState } from "@/components/ui/EmptyState";

export default function SessionNotFound() {
  return (
    <EmptyState title="Session not found">
      It may have been deleted, or the link is wrong.{" "}
      <a className="text-indigo-700 underline" href="/sessions">
        Back to sessions
      </a>
      .
    </EmptyState>
  );
}
