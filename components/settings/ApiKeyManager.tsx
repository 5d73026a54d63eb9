"use client";

import { useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/Badge";
import { EmptyState } from "@/components/ui/EmptyState";
import type { ActionResult } from "@/lib/http/action";
import { formatDateTime } from "@/lib/format";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { TextField } from "@/components/ui/Field";
import { ConfirmButton } from "@/components/ui/ConfirmButton";
import { useActionForm } from "@/components/ui/useActionForm";
import { CardTable } from "@/components/ui/DataTable";

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
  const [name, setName] = useState("");
  const [readOnly, setReadOnly] = useState(false);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const create = useActionForm();
  const revoke = useActionForm();
  const fieldError = create.error ? (create.fieldErrors("name")?.[0] ?? create.error.message) : null;
  const error = revoke.error?.message ?? null;
  const pending = create.pending || revoke.pending;

  function onCreate(event: FormEvent) {
    event.preventDefault();
    create.run(
      () => createAction({ name, readOnly }),
      (data) => {
        setCopied(false);
        setCreated({ name, key: data.key });
        setName("");
        setReadOnly(false);
      },
    );
  }

  async function copy(key: string) {
    await navigator.clipboard.writeText(key);
    setCopied(true);
  }

  return (
    <div className="space-y-6">
      <Card as="form" onSubmit={onCreate} padding="lg" className="shadow-sm" noValidate>
        <h2 className="font-semibold text-slate-900">Create a key</h2>
        <div className="mt-3 flex flex-wrap items-start gap-3">
          <TextField
            label="Name"
            className="min-w-64 flex-1"
            errors={fieldError ? [fieldError] : undefined}
            value={name}
            onValue={setName}
            placeholder="e.g. CI exporter, nightly eval script"
          />
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
              <Button variant="success" size="lg" onClick={() => void copy(created.key)}>
                {copied ? "Copied" : "Copy"}
              </Button>
            </div>
          </div>
        ) : null}
      </Card>

      {error ? (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      ) : null}

      {keys.length === 0 ? (
        <EmptyState title="No API keys yet">Create a key above, then send it from your script or exporter.</EmptyState>
      ) : (
        <CardTable
          cardClassName="overflow-x-auto shadow-sm"
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
                  <ConfirmButton
                    native
                    size="sm"
                    question={`Revoke "${k.name}"? Scripts using it will get 401 from now on.`}
                    pending={pending}
                    onConfirm={() => revoke.run(() => revokeAction({ id: k.id }))}
                  >
                    Revoke
                  </ConfirmButton>
                )}
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </div>
  );
}
