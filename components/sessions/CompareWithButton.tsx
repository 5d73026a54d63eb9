"use client";

import Link from "next/link";
import { useEffect, useId, useRef, useState } from "react";
import { compareCandidatesAction } from "@/lib/actions/sessions";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { CARD_CLASS } from "@/components/ui/Card";
import { formatDateTime } from "@/lib/format";
import type { CompareCandidate } from "@/lib/server/sessions/session-compare";

/**
 * "Compare with…": a dialog that offers the same agent's latest runs and finds any session by its title or id,
 * each a link to both sessions compared step by step (this one as run A).
 */
export function CompareWithButton({ sessionId, agent }: { sessionId: string; agent: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  const [q, setQ] = useState("");
  const [found, setFound] = useState<{ q: string; candidates: CompareCandidate[] } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  const searchId = useId();

  useEffect(() => {
    if (!open) return;
    let current = true;
    // Asks as the typing pauses; the answer to an older query is dropped.
    const timer = setTimeout(
      () => {
        compareCandidatesAction({ sessionId, ...(q.trim() ? { q: q.trim() } : {}) })
          .then((result) => {
            if (!current) return;
            if (result.ok) {
              setError(null);
              setFound({ q: q.trim(), candidates: result.data.candidates });
            } else setError(result.error.message);
          })
          .catch(() => current && setError("The sessions could not be read; try again."));
      },
      q ? 250 : 0,
    );
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [open, q, sessionId]);

  const show = () => {
    setOpen(true);
    dialog.current?.showModal();
  };
  const close = () => {
    dialog.current?.close();
  };

  return (
    <>
      <Button variant="secondary" onClick={show} data-testid="compare-with">
        Compare with…
      </Button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        onClose={() => setOpen(false)}
        className={`${CARD_CLASS} m-auto w-[min(36rem,calc(100vw-2rem))] p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40`}
        data-testid="compare-with-dialog"
      >
        <div className="border-b border-slate-200 px-4 py-3">
          <h2 id={titleId} className="text-base font-semibold">
            Compare with another session
          </h2>
          <p className="mt-0.5 text-xs text-slate-600">
            This session is run A; the one you pick is run B. Both are aligned step by step.
          </p>
        </div>
        <div className="px-4 py-3">
          <label htmlFor={searchId} className="text-sm text-slate-700">
            Search by title or id
          </label>
          <input
            id={searchId}
            type="search"
            value={q}
            onChange={(e) => setQ(e.target.value.slice(0, 200))}
            placeholder="e.g. refund, or a session id"
            autoComplete="off"
            className="mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
          />
          <p className="mt-3 mb-1 text-xs font-medium tracking-wide text-slate-500 uppercase" aria-live="polite">
            {found === null
              ? "Loading…"
              : found.q
                ? `${found.candidates.length === 0 ? "No" : found.candidates.length} session${found.candidates.length === 1 ? "" : "s"} found`
                : `Latest runs of ${agent}`}
          </p>
          {error ? (
            <p role="alert" className="text-sm text-rose-700">
              {error}
            </p>
          ) : null}
          {found && found.candidates.length === 0 && !found.q ? (
            <p className="text-sm text-slate-600">No other run of this agent yet: search for any session above.</p>
          ) : null}
          <ul className="max-h-80 space-y-1 overflow-y-auto" data-testid="compare-candidates">
            {found?.candidates.map((c) => (
              <li key={c.id}>
                <Link
                  href={`/sessions/${sessionId}/compare/${c.id}`}
                  className="block rounded-md border border-slate-200 px-3 py-2 text-sm hover:border-indigo-300 hover:bg-indigo-50"
                  data-testid="compare-candidate"
                >
                  <span className="block truncate font-medium text-slate-900">{c.label}</span>
                  <span className="mt-0.5 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-600">
                    {c.sameAgent ? <Badge tone="info">same agent</Badge> : <span>{c.agent}</span>}
                    <span>{c.startedAt ? formatDateTime(new Date(c.startedAt)) : "no start time"}</span>
                    <span>{c.eventCount} steps</span>
                    <span>{c.status}</span>
                    {c.outcome === "failed" ? <Badge tone="bad">task failed</Badge> : null}
                    <span className="font-mono text-[11px] text-slate-500">{c.id}</span>
                  </span>
                </Link>
              </li>
            ))}
          </ul>
        </div>
        <div className="flex justify-end border-t border-slate-200 px-4 py-3">
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
        </div>
      </dialog>
    </>
  );
}
