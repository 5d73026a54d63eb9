"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type FormEvent } from "react";
import { Badge } from "@/components/ui/Badge";
import { EmptyState } from "@/components/ui/EmptyState";
import type { ActionResult } from "@/lib/http/action";
import { formatDateTime } from "@/lib/format";
import { Button } from "@/components/ui/Button";
import { DataTable } from "@/components/ui/DataTable";

export type ApiKeyRow = {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  /** The owner's email; null for the server's own key (BRANCHPOINT_API_KEY). */
  owner: string | null;
  readOnly: boolean;
};

type Props = {
  keys: ApiKeyRow[];
  createAction: (input: {
    name: string;
    readOnly: boolean;
  }) => Promise<ActionResult<{ id: string; key: string; prefix: string }>>;
  revokeAction: (input: { id: string }) => Promise<ActionResult<{ id: string }>>;
};

/** Create keys (the value is shown once, with a copy button) and revoke them. */
export function ApiKeyManager({ keys, createAction, revokeAction }: Props) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [readOnly, setReadOnly] = useState(false);
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();

  function onCreate(event: FormEvent) {
    event.preventDefault();
    startTransition(async () => {
      const result = await createAction({ name, readOnly });
      if (!result.ok) {
        setFieldError(result.error.fieldErrors.name?.[0] ?? result.error.message);
        return;
      }
      setFieldError(null);
      setCopied(false);
      setCreated({ name, key: result.data.key });
      setName("");
      setReadOnly(false);
      router.refresh();
    });
  }

  function onRevoke(row: ApiKeyRow) {
    if (!window.confirm(`Revoke "${row.name}"? Scripts using it will get 401 from now on.`)) return;
    startTransition(async () => {
      const result = await revokeAction({ id: row.id });
      setError(result.ok ? null : result.error.message);
      router.refresh();
    });
  }

  async function copy(key: string) {
    await navigator.clipboard.writeText(key);
    setCopied(true);
  }

  return (
    <div className="space-y-6">
      <form onSubmit={onCreate} className="rounded-lg border border-slate-200 bg-white p-5 shadow-sm" noValidate>
        <h2 className="font-semibold text-slate-900">Create a key</h2>
        <div className="mt-3 flex flex-wrap items-start gap-3">
          <div className="min-w-64 flex-1">
            <label htmlFor="key-name" className="block text-sm font-medium text-slate-700">
              Name
            </label>
            <input
              id="key-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. CI exporter, nightly eval script"
              aria-invalid={fieldError ? true : undefined}
              aria-describedby={fieldError ? "key-name-error" : undefined}
              className="mt-1 w-full rounded-md border border-slate-300 px-3 py-2 text-sm focus:border-indigo-500 focus:ring-1 focus:ring-indigo-500 focus:outline-none"
            />
            {fieldError ? (
              <p id="key-name-error" className="mt-1 text-sm text-rose-700">
                {fieldError}
              </p>
            ) : null}
          </div>
          <label className="mt-7 flex items-center gap-2 text-sm text-slate-700">
            <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} />
            Read-only (it may only read, whatever your role)
          </label>
          <Button type="submit" disabled={pending} className="mt-6">
            Create key
          </Button>
        </div>
        {created ? (
          <div role="status" className="mt-4 rounded-md border border-emerald-200 bg-emerald-50 p-4">
            <p className="text-sm font-medium text-emerald-900">
              Key “{created.name}” created. Copy it now: it is shown this once and cannot be shown again.
            </p>
            <div className="mt-2 flex items-center gap-2">
              <code
                data-testid="new-api-key"
                className="flex-1 rounded border border-emerald-200 bg-white px-3 py-2 font-mono text-sm break-all text-slate-900 select-all"
              >
                {created.key}
              </code>
              <button
                type="button"
                onClick={() => void copy(created.key)}
                className="rounded-md border border-emerald-300 bg-white px-3 py-2 text-sm font-medium text-emerald-800 hover:bg-emerald-100"
              >
                {copied ? "Copied" : "Copy"}
              </button>
            </div>
          </div>
        ) : null}
      </form>

      {error ? (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      ) : null}

      {keys.length === 0 ? (
        <EmptyState title="No API keys yet">Create a key above, then send it from your script or exporter.</EmptyState>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <DataTable
            frame={false}
            columns={[
              "Name",
              "Owner",
              "Access",
              "Prefix",
              "Created",
              "Last used",
              "State",
              { label: "Actions", srOnly: true },
            ]}
          >
            {keys.map((k) => (
              <tr key={k.id} data-testid="api-key-row">
                <td className="px-4 py-2 font-medium text-slate-900">{k.name}</td>
                <td className="px-4 py-2 text-slate-600">{k.owner ?? "the server (BRANCHPOINT_API_KEY)"}</td>
                <td className="px-4 py-2 text-slate-600">{k.readOnly ? "read-only" : "owner's role"}</td>
                <td className="px-4 py-2 font-mono text-slate-600">{k.prefix}…</td>
                <td className="px-4 py-2 text-slate-600">{formatDateTime(k.createdAt)}</td>
                <td className="px-4 py-2 text-slate-600">{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : "never"}</td>
                <td className="px-4 py-2">
                  {k.revokedAt ? (
                    <Badge tone="bad">revoked {formatDateTime(k.revokedAt)}</Badge>
                  ) : (
                    <Badge tone="good">active</Badge>
                  )}
                </td>
                <td className="px-4 py-2 text-right">
                  {k.revokedAt ? null : (
                    <button
                      type="button"
                      disabled={pending}
                      onClick={() => onRevoke(k)}
                      className="rounded-md border border-rose-200 px-2 py-1 text-xs font-medium text-rose-700 hover:bg-rose-50 disabled:opacity-60"
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
    </div>
  );
}
