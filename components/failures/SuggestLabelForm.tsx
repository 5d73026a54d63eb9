"use client";

import Link from "next/link";
import { useState } from "react";
import { renameClusterAction, suggestClusterLabelAction } from "@/lib/actions/clusters";
import { Button } from "@/components/ui/Button";
import { Field, inputClass } from "@/components/ui/Field";
import { ErrorLine } from "@/components/ui/FormParts";
import { useActionForm } from "@/components/ui/useActionForm";

type Endpoint = { id: string; name: string; model: string; hostAllowed: boolean };
type ClusterLabelSuggestion = {
  label: string;
  model: string;
  endpoint: { id: string; name: string };
  prompt: { role: string; content: string }[];
};

/**
 * Asks a configured model endpoint for a label: shows the prompt sent and the model that answered, and the label,
 * which the analyst may edit and then accept (a rename).
 */
export function SuggestLabelForm({ clusterId, endpoints }: { clusterId: string; endpoints: Endpoint[] }) {
  const [endpointId, setEndpointId] = useState(endpoints[0]?.id ?? "");
  const [suggestion, setSuggestion] = useState<ClusterLabelSuggestion | null>(null);
  const [label, setLabel] = useState("");
  const [accepted, setAccepted] = useState(false);
  const ask = useActionForm({ refresh: false });
  const accept = useActionForm();
  if (endpoints.length === 0)
    return (
      <p className="text-sm text-slate-600">
        No model endpoint is configured. An administrator adds one in{" "}
        <Link href="/settings/executors" className="text-indigo-700 underline">
          Settings → Executors
        </Link>
        ; then a model can suggest a name from the signature and a few error messages.
      </p>
    );
  const chosen = endpoints.find((e) => e.id === endpointId);
  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Model endpoint" errors={ask.fieldErrors("endpointId")} className="min-w-[12rem] flex-1">
          <select className={inputClass} value={endpointId} onChange={(e) => setEndpointId(e.target.value)}>
            {endpoints.map((e) => (
              <option key={e.id} value={e.id}>
                {e.name} ({e.model}){e.hostAllowed ? "" : " — host not allowed"}
              </option>
            ))}
          </select>
        </Field>
        <Button
          variant="secondary"
          disabled={ask.pending || !chosen}
          onClick={() =>
            ask.run(
              () => suggestClusterLabelAction({ clusterId, endpointId }),
              (s) => {
                setSuggestion(s);
                setLabel(s.label);
                setAccepted(false);
              },
            )
          }
        >
          {ask.pending ? "Asking…" : "Suggest a label"}
        </Button>
      </div>
      <ErrorLine message={ask.formError} />
      {suggestion ? (
        <div className="flex flex-col gap-2" data-testid="label-suggestion">
          <p className="text-xs text-slate-700">
            Answered by <span className="font-medium">{suggestion.model}</span>
            {suggestion.endpoint.name === suggestion.model ? "" : ` at ${suggestion.endpoint.name}`}.
          </p>
          <details className="text-xs">
            <summary className="cursor-pointer text-slate-700">The prompt sent</summary>
            {suggestion.prompt.map((m, i) => (
              <div key={i} className="mt-2">
                <p className="font-medium text-slate-600">{m.role}</p>
                <pre className="max-h-64 overflow-auto rounded bg-slate-50 p-2 font-mono break-words whitespace-pre-wrap text-slate-900">
                  {m.content}
                </pre>
              </div>
            ))}
          </details>
          <form
            className="flex flex-wrap items-end gap-2"
            onSubmit={accept.onSubmit(
              () => renameClusterAction({ clusterId, label }),
              () => setAccepted(true),
            )}
          >
            <Field label="Suggested name" errors={accept.fieldErrors("label")} className="min-w-[12rem] flex-1">
              <input
                className={inputClass}
                value={label}
                maxLength={200}
                onChange={(e) => {
                  setLabel(e.target.value);
                  setAccepted(false);
                }}
              />
            </Field>
            <Button type="submit" disabled={accept.pending || label.trim() === ""}>
              {accept.pending ? "Saving…" : "Use this name"}
            </Button>
          </form>
          <ErrorLine message={accept.formError} />
          {accepted ? (
            <p role="status" className="text-sm text-emerald-800">
              Named.
            </p>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
