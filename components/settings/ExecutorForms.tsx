"use client";

import { useState } from "react";
import {
  addAllowedHostAction,
  removeExecutorSettingAction,
  saveModelEndpointAction,
  saveToolEndpointAction,
} from "@/lib/actions/executors";
import { Button } from "@/components/ui/Button";
import { GridField, GridFields, SubmitRow } from "@/components/ui/FormParts";
import { useActionForm as useSubmit } from "@/components/ui/useActionForm";

export function ModelEndpointForm() {
  const { pending, error, run } = useSubmit();
  const [v, setV] = useState({ name: "", baseUrl: "", model: "", apiKeyEnv: "" });
  return (
    <form
      aria-label="Add a model endpoint"
      className="grid gap-3 sm:grid-cols-4"
      onSubmit={(e) => {
        e.preventDefault();
        run(
          () => saveModelEndpointAction({ ...v, ...(v.apiKeyEnv ? {} : { apiKeyEnv: undefined }) }),
          () => setV({ name: "", baseUrl: "", model: "", apiKeyEnv: "" }),
        );
      }}
    >
      <GridFields
        fields={[
          ["name", "Name", "openai"],
          ["baseUrl", "Base URL", "https://api.openai.com/v1"],
          ["model", "Model", "gpt-4.1"],
          ["apiKeyEnv", "Key's environment variable", "OPENAI_API_KEY"],
        ]}
        values={v}
        onValues={setV}
        error={error}
      />
      <SubmitRow label="Save model endpoint" pending={pending} error={error} />
    </form>
  );
}

export function ToolEndpointForm() {
  const { pending, error, run } = useSubmit();
  const [v, setV] = useState({ toolName: "", url: "", timeoutMs: "10000", readOnly: false });
  return (
    <form
      aria-label="Add a tool endpoint"
      className="grid gap-3 sm:grid-cols-4"
      onSubmit={(e) => {
        e.preventDefault();
        run(
          () => saveToolEndpointAction({ ...v, timeoutMs: Number(v.timeoutMs) }),
          () => setV({ toolName: "", url: "", timeoutMs: "10000", readOnly: false }),
        );
      }}
    >
      <GridField
        label="Tool"
        name="toolName"
        value={v.toolName}
        placeholder="lookup_order"
        onValue={(toolName) => setV({ ...v, toolName })}
        error={error}
      />
      <GridField
        className="text-sm sm:col-span-2"
        label={<>URL (receives POST {"{ tool, args, callId }"})</>}
        name="url"
        value={v.url}
        placeholder="http://127.0.0.1:8080/tools/lookup_order"
        onValue={(url) => setV({ ...v, url })}
        error={error}
      />
      <GridField
        label="Timeout (ms)"
        name="timeoutMs"
        inputMode="numeric"
        value={v.timeoutMs}
        onValue={(timeoutMs) => setV({ ...v, timeoutMs })}
        error={error}
      />
      <label className="flex items-center gap-2 text-sm sm:col-span-4">
        <input type="checkbox" checked={v.readOnly} onChange={(e) => setV({ ...v, readOnly: e.target.checked })} />
        Read-only (safe to repeat). Tools declared write or external_mutation still need approval per call.
      </label>
      <SubmitRow label="Save tool endpoint" pending={pending} error={error} />
    </form>
  );
}

export function AllowedHostForm() {
  const { pending, error, run } = useSubmit();
  const [host, setHost] = useState("");
  return (
    <form
      aria-label="Allow a host"
      className="flex flex-wrap items-start gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        run(
          () => addAllowedHostAction({ host }),
          () => setHost(""),
        );
      }}
    >
      <input
        name="host"
        aria-label="Host"
        value={host}
        placeholder="api.example.com or 127.0.0.1:8080"
        onChange={(e) => setHost(e.target.value)}
        className="w-80 rounded-md border border-slate-300 px-2 py-1 text-sm"
      />
      <Button type="submit" disabled={pending}>
        Allow host
      </Button>
      {error ? (
        <span role="alert" className="w-full text-sm text-rose-700">
          {error.message}
        </span>
      ) : null}
    </form>
  );
}

export function RemoveButton({
  kind,
  id,
  label,
}: {
  kind: "model" | "tool" | "host" | "mcp";
  id: string;
  label: string;
}) {
  const { pending, run } = useSubmit();
  return (
    <Button
      variant="dangerLink"
      size="inline"
      className="text-xs"
      disabled={pending}
      aria-label={`Remove ${label}`}
      onClick={() => run(() => removeExecutorSettingAction({ kind, id }))}
    >
      Remove
    </Button>
  );
}
