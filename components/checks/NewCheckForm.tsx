"use client";

import { useState } from "react";
import { createCheckAction } from "@/lib/actions/checks";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Field, TextField, inputClass } from "@/components/ui/Field";
import { Notice } from "@/components/ui/Notice";
import { useActionForm } from "@/components/ui/useActionForm";
import type { CheckDefinition } from "@/lib/replay";
import { CHECK_KINDS } from "./describe";

type Kind = CheckDefinition["kind"];

const EMPTY = {
  text: "",
  caseSensitive: false,
  pattern: "",
  flags: "",
  path: "",
  equals: "",
  tool: "",
  args: "",
  max: "",
  maxUsd: "",
  rubric: "",
  model: "",
};
type Draft = typeof EMPTY;

/** A JSON value typed in a text field, or the reason it is not one. */
function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, message: 'Not JSON: write 7, "shipped", true, null or an object.' };
  }
}

/** The definition the fields describe, or the field errors found before sending anything. */
export function definitionOf(
  kind: Kind,
  d: Draft,
): { ok: true; definition: unknown } | { ok: false; fields: Record<string, string[]> } {
  const number = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));
  switch (kind) {
    case "output_contains":
      return { ok: true, definition: { kind, text: d.text, ...(d.caseSensitive ? { caseSensitive: true } : {}) } };
    case "output_regex":
      return { ok: true, definition: { kind, pattern: d.pattern, ...(d.flags ? { flags: d.flags } : {}) } };
    case "output_json_path": {
      const equals = parseJson(d.equals);
      if (!equals.ok) return { ok: false, fields: { "definition.equals": [equals.message] } };
      return { ok: true, definition: { kind, path: d.path, equals: equals.value } };
    }
    case "tool_called":
    case "tool_not_called": {
      if (d.args.trim() === "") return { ok: true, definition: { kind, tool: d.tool } };
      const args = parseJson(d.args);
      if (!args.ok) return { ok: false, fields: { "definition.args": [args.message] } };
      return { ok: true, definition: { kind, tool: d.tool, args: args.value } };
    }
    case "max_steps":
      return { ok: true, definition: { kind, max: number(d.max) } };
    case "max_cost":
      return { ok: true, definition: { kind, maxUsd: number(d.maxUsd) } };
    case "llm_judge":
      return { ok: true, definition: { kind, rubric: d.rubric, ...(d.model.trim() ? { model: d.model.trim() } : {}) } };
  }
}

/** Save a named outcome check: the fields follow the kind chosen. */
export function NewCheckForm() {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<Kind>("output_contains");
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [localErrors, setLocalErrors] = useState<Record<string, string[]>>({});
  const [saved, setSaved] = useState<string | null>(null);
  const form = useActionForm();
  const errorsOf = (path: string) => localErrors[path] ?? form.fieldErrors(path);
  const set = (key: keyof Draft) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
    setDraft({
      ...draft,
      [key]: e.target.type === "checkbox" ? (e.target as HTMLInputElement).checked : e.target.value,
    });

  function submit(event: React.FormEvent) {
    event.preventDefault();
    setSaved(null);
    const built = definitionOf(kind, draft);
    if (!built.ok) {
      setLocalErrors(built.fields);
      return;
    }
    setLocalErrors({});
    form.run(
      () => createCheckAction({ name, definition: built.definition as CheckDefinition }),
      (created) => {
        setSaved(created.name);
        setName("");
        setDraft(EMPTY);
      },
    );
  }

  const text = (
    key: keyof Draft,
    label: string,
    hint?: string,
    props: React.InputHTMLAttributes<HTMLInputElement> = {},
  ) => (
    <Field label={label} hint={hint} errors={errorsOf(`definition.${key}`)}>
      <input value={String(draft[key])} onChange={set(key)} className={`${inputClass} font-mono`} {...props} />
    </Field>
  );

  return (
    <Card title="New check">
      <form onSubmit={submit} className="space-y-4" aria-label="New outcome check">
        <TextField label="Name" errors={errorsOf("name")} value={name} placeholder="Refund issued" onValue={setName} />
        <Field label="Kind">
          <select value={kind} onChange={(e) => setKind(e.target.value as Kind)} className={inputClass}>
            {(Object.keys(CHECK_KINDS) as Kind[]).map((k) => (
              <option key={k} value={k}>
                {CHECK_KINDS[k]}
              </option>
            ))}
          </select>
        </Field>
        {kind === "output_contains" ? (
          <>
            {text("text", "Text")}
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="checkbox" checked={draft.caseSensitive} onChange={set("caseSensitive")} /> Case-sensitive
            </label>
          </>
        ) : null}
        {kind === "output_regex" ? (
          <>
            {text(
              "pattern",
              "Pattern",
              "RE2 syntax: matching takes linear time, so lookarounds and backreferences are not available.",
            )}
            {text("flags", "Flags", "Any of i (ignore case), m (^ and $ per line), s (. matches newlines).")}
          </>
        ) : null}
        {kind === "output_json_path" ? (
          <>
            {text("path", "Path", "Into the final answer read as JSON, e.g. $.order.status or $.items[0].id.")}
            {text("equals", "Equals (JSON)", 'e.g. "refunded", 7, true or null.')}
          </>
        ) : null}
        {kind === "tool_called" || kind === "tool_not_called" ? (
          <>
            {text("tool", "Tool name")}
            {text(
              "args",
              "Arguments (optional JSON object)",
              'Only calls whose arguments hold these keys and values count, e.g. {"order_id": "4821"}.',
            )}
          </>
        ) : null}
        {kind === "max_steps" ? text("max", "Most model and tool steps", undefined, { inputMode: "numeric" }) : null}
        {kind === "max_cost" ? text("maxUsd", "Most cost in US dollars", undefined, { inputMode: "decimal" }) : null}
        {kind === "llm_judge" ? (
          <>
            <Field
              label="Rubric"
              hint="What a right run does. The judge answers pass or fail with its reason; its prompt and answer are kept as evidence."
              errors={errorsOf("definition.rubric")}
            >
              <textarea value={draft.rubric} onChange={set("rubric")} rows={4} className={inputClass} />
            </Field>
            {text(
              "model",
              "Model endpoint (optional)",
              "The endpoint's name in the executor settings; by default the replay's own.",
            )}
          </>
        ) : null}
        {form.error ? <Notice tone="error">{form.error.message}</Notice> : null}
        {saved ? (
          <Notice tone="success">
            Saved &ldquo;{saved}&rdquo;. Choose it when you start a replay or an experiment.
          </Notice>
        ) : null}
        <Button type="submit" disabled={form.pending}>
          {form.pending ? "Saving…" : "Save check"}
        </Button>
      </form>
    </Card>
  );
}
