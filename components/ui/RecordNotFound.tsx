import type { RecordKind } from "@/lib/http/detail-routes";
import { EmptyState } from "./EmptyState";

const WORDS: Record<RecordKind | "page", { title: string; href: string; back: string }> = {
  session: { title: "Session not found", href: "/sessions", back: "All sessions" },
  replay: { title: "Replay not found", href: "/replays", back: "All replays" },
  policy: { title: "Policy not found", href: "/policies", back: "All policies" },
  report: { title: "Report not found", href: "/reports", back: "All reports" },
  experiment: { title: "Experiment not found", href: "/experiments", back: "All experiments" },
  trials: { title: "Trials not found", href: "/replays", back: "All replays" },
  investigation: { title: "Investigation not found", href: "/sessions", back: "All sessions" },
  cluster: { title: "Failure cluster not found", href: "/failures", back: "All failures" },
  check: { title: "Outcome check not found", href: "/checks", back: "All outcome checks" },
  reviewQueue: { title: "Review queue not found", href: "/reviews", back: "All review queues" },
  dataset: { title: "Dataset not found", href: "/datasets", back: "All datasets" },
  page: { title: "Page not found", href: "/", back: "Home" },
};

/** What an unknown id (or path) shows: what was not found, and the way back to its list. */
export function RecordNotFound({ kind }: { kind: RecordKind | "page" }) {
  const words = WORDS[kind];
  return (
    <EmptyState title={words.title} link={{ href: words.href, label: words.back }}>
      {kind === "page"
        ? "No page has this address. Check the link, or start from the home page."
        : "Nothing has this id: it may have been deleted, or the link is wrong."}
    </EmptyState>
  );
}
