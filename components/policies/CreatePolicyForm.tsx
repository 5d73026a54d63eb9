"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { createPolicyAction } from "@/lib/actions/policies";
import { draftKey } from "./editor-state";
import { formatDocument } from "./editor-state";
import { PRESET_WORDS } from "@/lib/policies/labels";
import { presetsForAdapter, type Preset } from "@/lib/policies/presets";
import { Button } from "@/components/ui/Button";
import { useUrlState } from "@/components/ui/useUrlState";
import { Card } from "@/components/ui/Card";
import { Field, inputClass, TextAreaField, TextField } from "@/components/ui/Field";
import { useActionForm } from "@/components/ui/useActionForm";
import { ChoiceHelp } from "./EnumWords";
import { PolicyFileInput } from "./PolicyFileInput";

/** Create a policy from a preset (the policy-levels tool levels, or the recommended RCA default) or an imported document. */
export function CreatePolicyForm({ agents }: { agents: { id: string; name: string; adapter: string }[] }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [agentId, setAgentId] = useState("");
  const [kind, setKind] = useUrlState("create", ["preset", "import"], "preset");
  const [chosenPreset, setPreset] = useState<Preset>("recommended");
  // Only the presets that stand as they are for the chosen agent's adapter (no `llm` where the adapter rejects it).
  const presets = presetsForAdapter(agents.find((a) => a.id === agentId)?.adapter ?? null);
  const preset = presets.includes(chosenPreset) ? chosenPreset : "recommended";
  const [text, setText] = useState("");
  const { pending, error, run } = useActionForm({ refresh: false });
  const errors = error?.fields ?? {};
  const message = error?.message ?? null;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    run(
      () =>
        createPolicyAction({
          name,
          ...(agentId ? { agentId } : {}),
          source: kind === "preset" ? { kind, preset } : { kind, text },
        }),
      (data) => {
        // An invalid document is never a version: it opens as an unsaved draft, with its errors shown.
        if (data.draft) {
          window.localStorage.setItem(
            draftKey(data.id, 0),
            JSON.stringify({ text: formatDocument(data.draft), savedAt: new Date().toISOString() }),
          );
        }
        router.push(`/policies/${data.id}`);
      },
    );
  };

  // A field's errors, with those of its parts (source.text's under "source") named by the part.
  const fieldErrors = (key: string) =>
    Object.entries(errors)
      .filter(([k]) => k === key || k.startsWith(`${key}.`) || k.startsWith(`${key}[`))
      .flatMap(([k, v]) => v.map((m) => (k === key ? m : `${k.slice(key.length + 1)}: ${m}`)));

  return (
    <Card as="form" onSubmit={submit} aria-label="New policy">
      <h2 className="mb-3 text-sm font-semibold text-slate-900">New policy</h2>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
        <TextField
          label="Name"
          aria-label="Policy name"
          value={name}
          onValue={setName}
          placeholder="e.g. refund RCA"
          errors={fieldErrors("name")}
        />
        <Field label="Agent" errors={fieldErrors("agentId")}>
          <select
            aria-label="Agent"
            className={inputClass}
            value={agentId}
            onChange={(e) => setAgentId(e.target.value)}
          >
            <option value="">No agent (validated against the schema only)</option>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.adapter})
              </option>
            ))}
          </select>
        </Field>
        <fieldset className="text-xs font-medium text-slate-600">
          <legend>Start from</legend>
          <div className="mt-2 flex gap-4">
            <label className="flex items-center gap-1">
              <input type="radio" name="kind" checked={kind === "preset"} onChange={() => setKind("preset")} /> a preset
            </label>
            <label className="flex items-center gap-1">
              <input type="radio" name="kind" checked={kind === "import"} onChange={() => setKind("import")} /> an
              imported document
            </label>
          </div>
        </fieldset>
      </div>
      <div className="mt-3">
        {kind === "preset" ? (
          <Field
            label="Preset"
            hint={<ChoiceHelp words={PRESET_WORDS[preset]} value={preset} testId="preset-help" />}
            errors={fieldErrors("source")}
          >
            <select
              aria-label="Preset"
              className={inputClass}
              value={preset}
              onChange={(e) => setPreset(e.target.value as Preset)}
            >
              {presets.map((p) => (
                <option key={p} value={p}>
                  {PRESET_WORDS[p].label}
                </option>
              ))}
            </select>
          </Field>
        ) : (
          <>
            <TextAreaField
              label="Document: Kitaru --tool-policy JSON, policy-levels JSON or a Branchpoint policy (detected)"
              aria-label="Document to import"
              inputClassName={`${inputClass} h-32 font-mono text-xs`}
              value={text}
              onValue={setText}
              errors={fieldErrors("source.text")}
            />
            <PolicyFileInput onText={setText} className="mt-1 text-xs" />
          </>
        )}
      </div>
      <div className="mt-3 flex items-center gap-3">
        <Button type="submit" disabled={pending}>
          {pending ? "Creating…" : "Create and edit"}
        </Button>
        {message ? (
          <span role="alert" className="text-xs text-rose-700">
            {message}
          </span>
        ) : null}
      </div>
    </Card>
  );
}
