import { Badge } from "@/components/ui/Badge";
import { JsonBlock } from "@/components/ui/JsonBlock";
import { formatPath, type PendingCall } from "@/lib/replay";
import { prettyJson } from "@/lib/format";
import { ApprovalForm } from "./ApprovalForm";
import { FixtureForm } from "./FixtureForm";

const jsonText = (value: unknown) => JSON.stringify(value ?? null, null, 2);

/** The call a paused branch waits on: what was asked, why history had nothing, and the form that resumes it. */
export function PendingCallPanel({ replayId, pending }: { replayId: string; pending: PendingCall }) {
  const fixture = pending.waitingFor === "fixture";
  // The heading already says what the branch waits for; below it, only why (the stored message repeats the heading's words).
  const why = fixture ? pending.miss?.message : pending.message;
  return (
    <section aria-labelledby="pending-title" className="mb-8 rounded-lg border border-amber-300 bg-amber-50/60 p-5">
      <h2 id="pending-title" className="text-base font-semibold text-slate-900">
        {fixture ? "Waiting for a fixture" : "Waiting for approval"}: <span className="font-mono">{pending.tool}</span>{" "}
        at step {pending.step}
      </h2>
      {why ? (
        <p className="mt-1 text-sm text-slate-700" data-testid="pending-why">
          {why}
        </p>
      ) : null}
      <div className="mt-4 grid gap-4 lg:grid-cols-2">
        <div className="space-y-3">
          <p className="mb-1 text-xs text-slate-500">
            Call id <span className="font-mono text-slate-700">{pending.callId}</span>
          </p>
          <JsonBlock label="Arguments" value={pending.args} />
          {pending.miss ? (
            <div>
              <div className="mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase">
                Closest recorded calls
              </div>
              {pending.miss.closest.length === 0 ? (
                <p className="text-sm text-slate-600">The base run has no call of {pending.tool}.</p>
              ) : (
                <ul className="space-y-2">
                  {pending.miss.closest.map((c) => (
                    <li key={c.seq} className="rounded border border-slate-200 bg-white p-2 text-sm">
                      <div className="flex flex-wrap items-center gap-2">
                        <span className="font-mono text-xs">seq {c.seq}</span>
                        {c.differingPaths.length === 0 ? (
                          <Badge tone="warn">same arguments; occurrence used up</Badge>
                        ) : (
                          c.differingPaths.map((p) => (
                            <Badge key={formatPath(p)} tone="bad">
                              differs at {formatPath(p)}
                            </Badge>
                          ))
                        )}
                      </div>
                      <pre className="mt-1 overflow-x-auto font-mono text-xs text-slate-600">{prettyJson(c.args)}</pre>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ) : null}
        </div>
        <div>
          {fixture ? (
            <FixtureForm
              replayId={replayId}
              callId={pending.callId}
              prefillOutput={pending.prefill && !pending.prefill.error ? jsonText(pending.prefill.output) : "null"}
              prefillError={
                pending.prefill?.error
                  ? jsonText(pending.prefill.error)
                  : '{\n  "type": "ToolError",\n  "message": ""\n}'
              }
              prefilledFrom={pending.prefill?.seq ?? null}
            />
          ) : (
            <ApprovalForm replayId={replayId} callId={pending.callId} tool={pending.tool} />
          )}
        </div>
      </div>
    </section>
  );
}
