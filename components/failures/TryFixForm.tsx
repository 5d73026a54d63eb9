"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { startClusterFixAction } from "@/lib/actions/clusters";
import type { EditFields } from "@/components/experiments/CohortEditFields";
import { Button } from "@/components/ui/Button";
import { Field, TextField, fieldBinder, inputClass } from "@/components/ui/Field";
import { ErrorLine } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";
import { editRowsInput, FixEdits } from "./FixEdits";

export type FixPolicyChoice = { id: string; name: string };
/** A model endpoint a live model may run on, as the label form offers them. */
export type FixEndpointChoice = { id: string; name: string; model: string; hostAllowed: boolean };

const PRESETS = ["recorded-only", "pause-for-fixture", "analyst-fixture", "simulated", "live-readonly", "blocked"];
const MODELS = ["recorded-only", "recorded-until-divergence", "pinned-live", "compatible-live"];
/** The model policies that call a model (and so run on an endpoint). */
const LIVE = new Set(["recorded-until-divergence", "pinned-live", "compatible-live"]);

/** The saved policies as a select's options, each `policy:<id>`. */
export function PolicyOptions({ policies }: { policies: readonly FixPolicyChoice[] }) {
  return policies.map((p) => (
    <option key={p.id} value={`policy:${p.id}`}>
      {p.name}
    </option>
  ));
}

/** Whole numbers typed into a field: blank is "not given". */
const count = (text: string) => (text.trim() === "" ? undefined : Number(text));

/**
 * "Try a fix": a saved policy or a preset, optionally with another model (on a chosen model endpoint) and edits
 * of tools' results, run as an experiment over the cluster's sessions (or a sample) and a control sample of the
 * agent's passing sessions.
 */
export function TryFixForm({
  clusterId,
  policies,
  endpoints = [],
}: {
  clusterId: string;
  policies: readonly FixPolicyChoice[];
  endpoints?: readonly FixEndpointChoice[];
}) {
  const router = useRouter();
  const form = useActionForm();
  const [source, setSource] = useState(policies[0] ? `policy:${policies[0].id}` : "preset:recorded-only");
  const [model, setModel] = useState("");
  const [endpoint, setEndpoint] = useState("");
  const [edits, setEdits] = useState<EditFields[]>([]);
  const [editErrors, setEditErrors] = useState<Record<string, string>>({});
  const [sample, setSample] = useState("");
  const [control, setControl] = useState("10");
  const [seed, setSeed] = useState("0");
  // The body's fields as the input's check names them, or as the operation does.
  const err = (path: string) => form.fieldErrors(`body.${path}`) ?? form.fieldErrors(path);
  const bind = fieldBinder(err);
  // A row's errors: what the browser found before sending, and what the server said.
  const editErrorsOf = (path: string) => {
    const all = [...(editErrors[path] ? [editErrors[path]] : []), ...(err(path) ?? [])];
    return all.length > 0 ? all : undefined;
  };
  return (
    <form
      className="flex flex-col gap-3"
      data-testid="try-fix"
      onSubmit={(e) => {
        e.preventDefault();
        const edited = editRowsInput(edits);
        if ("errors" in edited) {
          setEditErrors(edited.errors);
          return;
        }
        setEditErrors({});
        const [kind, value] = [source.slice(0, source.indexOf(":")), source.slice(source.indexOf(":") + 1)];
        const body = {
          ...(kind === "policy" ? { policyId: value } : { preset: value as "recorded-only" }),
          ...(model ? { model: model as "recorded-only" } : {}),
          ...(endpoint && LIVE.has(model) ? { modelEndpoint: endpoint } : {}),
          ...(edited.edits.length > 0 ? { edits: edited.edits } : {}),
          ...(count(sample) !== undefined ? { sample: count(sample) } : {}),
          ...(count(control) ? { controlSample: count(control) } : {}),
          ...(count(seed) !== undefined ? { seed: count(seed) } : {}),
        };
        form.run(
          () => startClusterFixAction({ clusterId, body }),
          (data) => router.push(`/experiments/${data.experimentId}`),
        );
      }}
    >
      <Field
        label="Policy"
        hint="A saved policy, or a tool level with every model step from the recording."
        errors={err("policyId")}
      >
        <select className={inputClass} value={source} onChange={(e) => setSource(e.target.value)} name="source">
          <PolicyOptions policies={policies} />
          {PRESETS.map((p) => (
            <option key={p} value={`preset:${p}`}>
              Preset: {p}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Model" hint="Run the policy with another model policy." errors={err("model") ?? err("policy")}>
        <select className={inputClass} value={model} onChange={(e) => setModel(e.target.value)} name="model">
          <option value="">As the policy says</option>
          {MODELS.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      </Field>
      {LIVE.has(model) && endpoints.length > 0 ? (
        <Field label="Model endpoint" hint="The endpoint the live model runs on." errors={err("modelEndpoint")}>
          <select
            className={inputClass}
            value={endpoint}
            onChange={(e) => setEndpoint(e.target.value)}
            name="modelEndpoint"
          >
            <option value="">Chosen as a replay chooses it</option>
            {endpoints.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name === p.model ? p.name : `${p.name} (${p.model})`}
                {p.hostAllowed ? "" : " — host not allowed"}
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      <FixEdits rows={edits} onChange={setEdits} errorsOf={editErrorsOf} />
      <div className="grid grid-cols-3 gap-2">
        <TextField
          label="Sample"
          hint="Blank: every session."
          inputMode="numeric"
          {...bind("sample", sample, setSample)}
        />
        <TextField
          label="Control"
          hint="Passing sessions."
          inputMode="numeric"
          {...bind("controlSample", control, setControl)}
        />
        <TextField label="Seed" inputMode="numeric" {...bind("seed", seed, setSeed)} />
      </div>
      <div>
        <Button type="submit" disabled={form.pending}>
          {form.pending ? "Starting…" : "Try this fix"}
        </Button>
      </div>
      <ErrorLine message={form.formError} />
    </form>
  );
}
