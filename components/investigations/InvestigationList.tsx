import Link from "next/link";
import { StatusBadge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { investigationKindWords, resultInWords } from "./words";

export interface InvestigationSummary {
  id: string;
  kind: string;
  status: string;
  result: unknown;
  createdBy: string | null;
  createdAt: string;
}

/** A session's earlier investigations, newest first. */
export function InvestigationList({ investigations }: { investigations: readonly InvestigationSummary[] }) {
  return (
    <Card title="Earlier investigations">
      {investigations.length === 0 ? (
        <p className="text-sm text-slate-600">None yet: start one with the form.</p>
      ) : (
        <ul className="space-y-2 text-sm" data-testid="investigation-list">
          {investigations.map((i) => (
            <li key={i.id} className="flex flex-wrap items-center gap-2">
              <StatusBadge status={i.status} />
              <Link href={`/investigations/${i.id}`} className="font-medium text-indigo-700 hover:underline">
                {investigationKindWords(i.kind)}
              </Link>
              <span className="text-slate-600">
                {resultInWords(i.kind, i.result)} · {i.createdBy ?? "unknown"} ·{" "}
                {i.createdAt.slice(0, 16).replace("T", " ")}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
