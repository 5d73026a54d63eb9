import { Badge } from "@/components/ui/Badge";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { previewText } from "@/lib/format";
import type { Coverage, MissReason } from "@/lib/replay";

const REASON_LABEL: Record<MissReason, string> = {
  no_cache_key: "arguments cannot be matched",
  occurrences_used_up: "recorded answers used up",
  recording_incomplete: "recording never finished",
  no_recorded_call: "no recorded call with these arguments",
  no_completed_match_in_scope: "no completed match in history",
  no_static_case_matched: "no static case matched",
  no_fixture: "no fixture",
  live_call_in_doubt: "live call started by a stopped run",
};

/** The misses by reason: per tool, how often, at which steps, the closest recorded call and where it differs. */
export function MissesTable({ coverage }: { coverage: Coverage }) {
  return (
    <div>
      <h3 className="mb-2 text-sm font-semibold text-slate-900">Misses by reason</h3>
      <DataTable
        label="Misses by reason"
        columns={["Tool", "Reason", numberColumn("Count"), "Closest recorded call", "Differs at"]}
      >
        {coverage.tools.flatMap((t) =>
          t.misses.map((m) => (
            <tr key={`${t.tool}:${m.reason}`}>
              <td className="px-3 py-2 font-mono text-xs break-all">{t.tool}</td>
              <td className="px-3 py-2">
                {REASON_LABEL[m.reason] ?? m.reason}
                {m.pending ? (
                  <>
                    {" "}
                    <Badge tone="warn">waiting</Badge>
                  </>
                ) : null}
                {m.steps.length > 0 ? (
                  <div className="text-xs text-slate-500">
                    step{m.steps.length === 1 ? "" : "s"} {m.steps.join(", ")}
                  </div>
                ) : null}
              </td>
              <td className="px-3 py-2 text-right tabular-nums">{m.count}</td>
              <td className="px-3 py-2 text-xs">
                {m.closest ? (
                  <>
                    <span className="text-slate-500">seq {m.closest.seq}</span>{" "}
                    <code className="break-all">{previewText(m.closest.args, 100)}</code>
                  </>
                ) : (
                  <span className="text-slate-500">none recorded</span>
                )}
              </td>
              <td className="px-3 py-2 font-mono text-xs break-all">
                {m.differingPaths.length > 0 ? m.differingPaths.join(", ") : "—"}
              </td>
            </tr>
          )),
        )}
      </DataTable>
    </div>
  );
}

/** The recorded calls the branch never used (with their session when the coverage spans several). */
export function UnusedCallsTable({ coverage, multi }: { coverage: Coverage; multi: boolean }) {
  return (
    <div>
      <h3 className="mb-2 text-sm font-semibold text-slate-900">Recorded calls never used</h3>
      <DataTable
        label="Recorded calls never used"
        columns={["Tool", ...(multi ? ["Session"] : []), numberColumn("Seq"), "Arguments"]}
      >
        {coverage.tools.flatMap((t) =>
          t.unused.map((u) => (
            <tr key={`${t.tool}:${u.replayId ?? ""}:${u.seq}`}>
              <td className="px-3 py-2 font-mono text-xs break-all">{t.tool}</td>
              {multi ? (
                <td className="px-3 py-2 font-mono text-xs">
                  {u.replayId ? (
                    <a className="text-indigo-700 hover:underline" href={`/replays/${u.replayId}`}>
                      {u.sessionId}
                    </a>
                  ) : (
                    u.sessionId
                  )}
                </td>
              ) : null}
              <td className="px-3 py-2 text-right tabular-nums">{u.seq}</td>
              <td className="px-3 py-2 text-xs">
                <code className="break-all">{previewText(u.args, 160)}</code>
                {u.status !== "completed" ? (
                  <>
                    {" "}
                    <Badge tone="warn">{u.status}</Badge>
                  </>
                ) : null}
              </td>
            </tr>
          )),
        )}
      </DataTable>
    </div>
  );
}
