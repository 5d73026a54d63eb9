import { Badge } from "@/components/ui/Badge";

const STATE_TONE = { stale: "bad", fresh: "good", unchecked: "neutral" } as const;
const STATE_WORD = { stale: "stale", fresh: "same", unchecked: "not reached" } as const;

/**
 * The first cells of a checked recording's row (an investigation's, a report's): its step, its tool, and what the
 * tool answers today (stale, the same, or not reached). `cell` is the cells' spacing.
 */
export function StaleRecordCells({
  record,
  cell,
}: {
  record: { seq: number; tool: string; state: keyof typeof STATE_WORD };
  cell: string;
}) {
  return (
    <>
      <td className={`${cell} tabular-nums`}>{record.seq}</td>
      <td className={`${cell} font-mono text-xs`}>{record.tool}</td>
      <td className={cell}>
        <Badge tone={STATE_TONE[record.state]}>{STATE_WORD[record.state]}</Badge>
      </td>
    </>
  );
}
