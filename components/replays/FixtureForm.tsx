"use client";

import { useState } from "react";
import { supplyFixtureAction } from "@/lib/actions/replays";
import { JsonEditor } from "@/components/ui/monaco";
import { Button } from "@/components/ui/Button";
import { TextAreaField } from "@/components/ui/Field";
import { useActionForm } from "@/components/ui/useActionForm";

/** The fixture for a paused branch: output or error as JSON (prefilled from the closest recorded call), and a note. */
export function FixtureForm({
  replayId,
  callId,
  prefillOutput,
  prefillError,
  prefilledFrom,
}: {
  replayId: string;
  callId: string;
  prefillOutput: string;
  prefillError: string;
  prefilledFrom: number | null;
}) {
  const [kind, setKind] = useState<"output" | "error">("output");
  const [output, setOutput] = useState(prefillOutput);
  const [errorText, setErrorText] = useState(prefillError);
  const [note, setNote] = useState("");
  const { pending, error: problem, run } = useActionForm();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    run(() =>
      supplyFixtureAction({
        replayId,
        callId,
        kind,
        text: kind === "output" ? output : errorText,
        note,
        prefilledFrom,
      }),
    );
  };

  return (
    <form onSubmit={submit} className="space-y-3" aria-label="Fixture">
      <fieldset className="flex gap-4 text-sm">
        <legend className="sr-only">The tool returns</legend>
        {(["output", "error"] as const).map((k) => (
          <label key={k} className="flex items-center gap-1.5">
            <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
            {k === "output" ? "Output (the tool's result)" : "Error ({ type, message })"}
          </label>
        ))}
      </fieldset>
      {kind === "output" ? (
        <JsonEditor
          value={output}
          onChange={setOutput}
          height={220}
          path="fixture-output.json"
          ariaLabel="Fixture output JSON"
        />
      ) : (
        <JsonEditor
          value={errorText}
          onChange={setErrorText}
          height={140}
          path="fixture-error.json"
          ariaLabel="Fixture error JSON"
        />
      )}
      {problem?.fields.text ? <p className="text-sm text-rose-700">{problem.fields.text.join(" ")}</p> : null}
      <TextAreaField
        label="Note"
        hint="Where the value comes from (required; shown as evidence)."
        errors={problem?.fields.note}
        name="note"
        value={note}
        onValue={setNote}
        rows={2}
        placeholder="e.g. copied from the warehouse system for order 4822"
      />
      {problem && !problem.fields.text && !problem.fields.note ? (
        <p role="alert" className="text-sm text-rose-700">
          {problem.message}
        </p>
      ) : null}
      <Button type="submit" disabled={pending}>
        {pending ? "Resuming…" : "Store fixture and resume"}
      </Button>
    </form>
  );
}
