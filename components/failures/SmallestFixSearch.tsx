"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { cancelFixSearchAction, fixSearchesAction, startFixSearchAction } from "@/lib/actions/clusters";
import { StatusBadge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Field, TextField, inputClass } from "@/components/ui/Field";
import { ErrorLine } from "@/components/ui/FormParts";
import { ProgressBar } from "@/components/ui/ProgressBar";
import { useActionForm } from "@/components/ui/useActionForm";
import { formatDateTime, plural } from "@/lib/format";
import type { FixSearchView } from "@/lib/server/clusters/cluster-fix-search";
import { PolicyOptions, type FixPolicyChoice } from "./TryFixForm";

/** A fix tried on the cluster with edits of tools' results: a search narrows its policy changes and edits down. */
export type FixSearchChoice = { id: string; label: string };

const open = (s: FixSearchView) => s.status === "queued" || s.status === "running";
const count = (text: string) => (text.trim() === "" ? undefined : Number(text));

/** What a search found, in words. */
export function searchOutcome(s: FixSearchView): string {
  const probes = plural(s.progress.probes, "probe");
  if (s.status === "queued") return "Waiting for a worker.";
  if (s.status === "running")
    return `Running: ${probes} done (at most ${s.progress.atMost}). You can leave this page; the workers keep going.`;
  if (s.status === "failed") return `Stopped: ${s.error?.message ?? "the search ended without a result."}`;
  if (s.status === "cancelled") return `Cancelled after ${probes}.`;
  const r = s.result;
  if (r?.kind === "minimal")
    return `${r.changes.join(" and ")} fixes ${r.fixed} of ${r.of} on ${r.changes.length === 1 ? "its" : "their"} own (${probes}).`;
  if (r?.kind === "not_fixing")
    return `The whole policy fixes none of the sampled sessions, so there is no smaller fix to find (${probes}).`;
  return `Ended after ${probes}.`;
}

/**
 * The form: a saved policy or a fix tried with edits, sessions per probe and a seed; "Find the smallest fix"
 * starts the search.
 */
function SearchForm({
  clusterId,
  policies,
  fixes,
  running,
  onStarted,
}: {
  clusterId: string;
  policies: readonly FixPolicyChoice[];
  fixes: readonly FixSearchChoice[];
  running: boolean;
  onStarted: () => void;
}) {
  const form = useActionForm({ refresh: false });
  const [whole, setWhole] = useState(policies[0] ? `policy:${policies[0].id}` : fixes[0] ? `fix:${fixes[0].id}` : "");
  const [sample, setSample] = useState("");
  const [seed, setSeed] = useState("0");
  const err = (path: string) => form.fieldErrors(path);
  if (policies.length === 0 && fixes.length === 0)
    return (
      <p className="text-sm text-slate-600">
        Save a policy for this agent, or try a fix with edits of tools&apos; results, first: the search narrows its
        changes down to the ones that fix.
      </p>
    );
  const [kind, id] = [whole.slice(0, whole.indexOf(":")), whole.slice(whole.indexOf(":") + 1)];
  return (
    <form
      className="flex flex-col gap-3"
      aria-label="Find the smallest fix"
      onSubmit={form.onSubmit(
        () =>
          startFixSearchAction({
            clusterId,
            ...(kind === "fix" ? { fixId: id } : { policyId: id }),
            ...(count(sample) !== undefined ? { sample: count(sample) } : {}),
            ...(count(seed) !== undefined ? { seed: count(seed) } : {}),
          }),
        onStarted,
      )}
    >
      <Field
        label="Fix to narrow down"
        hint="A policy's changes from the recording, or a tried fix's changes and edits, are tried in smaller and smaller sets."
        errors={err("policyId") ?? err("fixId")}
      >
        <select className={inputClass} value={whole} onChange={(e) => setWhole(e.target.value)} name="whole">
          <PolicyOptions policies={policies} />
          {fixes.map((f) => (
            <option key={f.id} value={`fix:${f.id}`}>
              Fix tried: {f.label}
            </option>
          ))}
        </select>
      </Field>
      <div className="grid grid-cols-2 gap-2">
        <TextField
          label="Sessions per probe"
          hint="Blank: every session."
          errors={err("sample")}
          inputMode="numeric"
          value={sample}
          onValue={setSample}
        />
        <TextField label="Sample seed" errors={err("seed")} inputMode="numeric" value={seed} onValue={setSeed} />
      </div>
      <div>
        <Button type="submit" disabled={form.pending || running}>
          {form.pending ? "Starting…" : "Find the smallest fix"}
        </Button>
      </div>
      {form.error ? (
        <p role="alert" className="text-sm text-rose-700">
          {form.error.message}
          {form.error.issues.length > 0
            ? ` (${form.error.issues.map((i) => `${i.path || "input"}: ${i.message}`).join("; ")})`
            : ""}
        </p>
      ) : null}
    </form>
  );
}

/** One search: its status, progress or answer in words, the changes searched, and a cancel button while it runs. */
function SearchItem({
  search: s,
  canRun,
  onCancel,
}: {
  search: FixSearchView;
  canRun: boolean;
  onCancel: (searchId: string) => void;
}) {
  return (
    <li className="rounded-md border border-slate-200 p-3 text-sm" data-testid="smallest-fix-search">
      <div className="flex items-center justify-between gap-2">
        <StatusBadge status={s.status} />
        <span className="text-xs text-slate-600">{formatDateTime(s.createdAt)}</span>
      </div>
      <p className="mt-2 text-slate-900" data-testid="smallest-fix-outcome" role="status">
        {searchOutcome(s)}
      </p>
      {open(s) ? <ProgressBar label="Probes run" value={s.progress.probes} max={s.progress.atMost} /> : null}
      <p className="mt-2 text-xs text-slate-600">
        Searched {plural(s.changes.length, "change")}: {s.changes.join("; ")}
        {s.sample !== null ? `; ${s.sample} sessions per probe (seed ${s.seed})` : ""}.
      </p>
      {s.result?.kind === "minimal" && s.result.experimentId ? (
        <Link
          href={`/experiments/${s.result.experimentId}`}
          className="mt-1 inline-block text-xs text-indigo-700 hover:underline"
        >
          Open the probe that found it
        </Link>
      ) : null}
      {open(s) && canRun && !s.cancelRequested ? (
        <Button variant="secondary" size="sm" className="mt-2" onClick={() => onCancel(s.id)}>
          Cancel search
        </Button>
      ) : null}
    </li>
  );
}

/**
 * "Find the smallest fix": a saved policy's changes from the recording (each tool override, the default rule,
 * the model, run settings), or a tried fix's changes and each of its edits of tools' results, narrowed down by delta debugging to the fewest that fix as many of the cluster's
 * sessions as all of them; a job whose progress is polled here while it runs.
 */
export function SmallestFixSearch({
  clusterId,
  policies,
  fixes = [],
  searches: initial,
  canRun,
}: {
  clusterId: string;
  policies: readonly FixPolicyChoice[];
  /** Fixes tried with edits, to search over their edits too. */
  fixes?: readonly FixSearchChoice[];
  searches: readonly FixSearchView[];
  canRun: boolean;
}) {
  const router = useRouter();
  const [polling, setPolling] = useState(initial.some(open));
  /** When polling last started: an answer fetched before it may not know of the search just started. */
  const pollingSince = useRef(0);
  const startPolling = () => {
    pollingSince.current = Date.now();
    setPolling(true);
  };
  const [cancelError, setCancelError] = useState<string | null>(null);
  const { data, dataUpdatedAt } = useQuery({
    queryKey: ["fix-searches", clusterId],
    queryFn: async () => {
      const result = await fixSearchesAction({ clusterId });
      if (!result.ok) throw new Error(result.error.message);
      return result.data.searches;
    },
    refetchInterval: polling ? 1000 : false,
    enabled: polling,
  });
  const searches = data ?? initial;
  const running = searches.some(open);
  // The ended searches the page's own lists show: those the server rendered as ended (their probes are among the
  // cluster's fixes it listed). One that ends later is seen here by its id, however quickly it ended (even before
  // a poll saw it running), and the page is refreshed once for it.
  const shown = useRef(new Set<string>());
  useEffect(() => {
    for (const s of initial) if (!open(s)) shown.current.add(s.id);
  }, [initial]);
  useEffect(() => {
    const ended = searches.filter((s) => !open(s) && !shown.current.has(s.id));
    for (const s of ended) shown.current.add(s.id);
    if (ended.length > 0) router.refresh();
    if (polling && !running && dataUpdatedAt > pollingSince.current) setPolling(false);
  }, [searches, running, polling, dataUpdatedAt, router]);
  const cancel = async (searchId: string) => {
    setCancelError(null);
    const result = await cancelFixSearchAction({ clusterId, searchId });
    if (!result.ok) setCancelError(result.error.message);
    else startPolling();
  };
  return (
    <div className="flex flex-col gap-4" data-testid="smallest-fix">
      {canRun ? (
        <SearchForm
          clusterId={clusterId}
          policies={policies}
          fixes={fixes}
          running={running}
          onStarted={() => {
            startPolling();
            router.refresh();
          }}
        />
      ) : null}
      {searches.length === 0 ? (
        <p className="text-sm text-slate-600" data-testid="smallest-fix-empty">
          No search yet. A search replays the cluster&apos;s sessions under smaller and smaller parts of a policy and
          names the fewest changes that fix as many sessions as the whole policy.
        </p>
      ) : (
        <ul className="flex flex-col gap-3">
          {searches.slice(0, 5).map((s) => (
            <SearchItem key={s.id} search={s} canRun={canRun} onCancel={(id) => void cancel(id)} />
          ))}
        </ul>
      )}
      <ErrorLine message={cancelError} />
    </div>
  );
}
