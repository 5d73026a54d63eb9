"use client";

import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { useActionForm } from "@/components/ui/useActionForm";
import { JsonBlock } from "@/components/ui/JsonBlock";
import type { ActionResult } from "@/lib/http/action";

export interface FixtureGroupView {
  tool: string;
  cacheKey: string;
  args: unknown;
  prefillText: string;
  members: { replayId: string; session: { id: string; label: string } }[];
}

type Supply = (input: {
  experimentId: string;
  tool: string;
  cacheKey: string;
  output: unknown;
  note: string;
}) => Promise<
  ActionResult<{ supplied: { replayId: string; status: string | null; error: { message: string } | null }[] }>
>;

/** The waiting replays, each a link to its page, separated by commas. */
function ReplayLinks({ members }: { members: readonly { replayId: string; session: { label: string } }[] }) {
  return members.map((m, i) => (
    <span key={m.replayId}>
      {i > 0 ? ", " : ""}
      <Link href={`/replays/${m.replayId}`} className="text-indigo-700 hover:underline">
        {m.session.label}
      </Link>
    </span>
  ));
}

function GroupForm({ experimentId, group, supply }: { experimentId: string; group: FixtureGroupView; supply: Supply }) {
  const [output, setOutput] = useState(group.prefillText);
  const [note, setNote] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const { pending, error, run, fail } = useActionForm();
  const n = group.members.length;
  const id = `group-${group.cacheKey.slice(0, 12)}`;

  const submit = () => {
    setDone(null);
    let value: unknown;
    try {
      value = JSON.parse(output);
    } catch {
      return fail("The output is not valid JSON (write a string in double quotes).");
    }
    run(
      () => supply({ experimentId, tool: group.tool, cacheKey: group.cacheKey, output: value, note }),
      (data) => {
        const failed = data.supplied.filter((s) => s.error);
        setDone(
          `Supplied to ${data.supplied.length - failed.length} of ${data.supplied.length} replays.` +
            (failed.length > 0 ? ` Not supplied: ${failed.map((f) => f.error?.message).join(" ")}` : ""),
        );
      },
    );
  };

  return (
    <li className="rounded-lg border border-amber-300 bg-white p-4" data-testid="fixture-group">
      <h3 className="text-sm font-semibold text-slate-900">
        {n === 1 ? "1 replay waits" : `${n} replays wait`} for <code className="font-mono">{group.tool}</code>
      </h3>
      <p className="mt-1 text-xs text-slate-600">
        {n === 1 ? "" : "Same tool, same arguments: one fixture answers all of them. "}
        <ReplayLinks members={group.members} />
      </p>
      <div className="mt-2 text-xs text-slate-500">Arguments</div>
      <JsonBlock value={group.args} />
      <form
        className="mt-3 space-y-2"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <label htmlFor={`${id}-output`} className="block text-xs font-medium text-slate-700">
          Output (JSON)
        </label>
        <textarea
          id={`${id}-output`}
          value={output}
          onChange={(e) => setOutput(e.target.value)}
          rows={3}
          className="w-full rounded-md border border-slate-300 px-2 py-1 font-mono text-sm"
        />
        <label htmlFor={`${id}-note`} className="block text-xs font-medium text-slate-700">
          Note (where the value comes from)
        </label>
        <input
          id={`${id}-note`}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          className="w-full rounded-md border border-slate-300 px-2 py-1 text-sm"
        />
        {error ? (
          <p role="alert" className="text-sm text-rose-700">
            {error.message}
          </p>
        ) : null}
        {done ? <p className="text-sm text-emerald-700">{done}</p> : null}
        <Button type="submit" disabled={pending}>
          {pending ? "Supplying…" : `Supply to all ${n} replay${n === 1 ? "" : "s"}`}
        </Button>
      </form>
    </li>
  );
}

/** The calls an experiment's paused members wait on, one form per call. */
export function FixtureGroups({
  experimentId,
  groups,
  ungrouped,
  supply,
}: {
  experimentId: string;
  groups: FixtureGroupView[];
  ungrouped: { replayId: string; session: { label: string } }[];
  supply: Supply;
}) {
  if (groups.length === 0 && ungrouped.length === 0) return null;
  return (
    <section aria-labelledby="fixture-groups-heading" className="mb-6">
      <h2 id="fixture-groups-heading" className="mb-2 text-sm font-semibold text-slate-900">
        Waiting for fixtures
      </h2>
      <ul className="space-y-3">
        {groups.map((g) => (
          <GroupForm key={`${g.tool}:${g.cacheKey}`} experimentId={experimentId} group={g} supply={supply} />
        ))}
      </ul>
      {ungrouped.length > 0 ? (
        <p className="mt-2 text-xs text-slate-600">
          Without a cache key, these wait on calls that cannot be matched to others; supply each on its replay&apos;s
          page: <ReplayLinks members={ungrouped} />
        </p>
      ) : null}
    </section>
  );
}
