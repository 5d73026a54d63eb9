"use client";

import { useState } from "react";
import { Badge, type Tone } from "@/components/ui/Badge";
import type { ActionResult } from "@/lib/http/action";
import { EXPIRY_LABELS, type ExpiresIn, type ShareState } from "@/lib/reports/share";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { useActionForm } from "@/components/ui/useActionForm";
import { DataTable } from "@/components/ui/DataTable";
import { ActionError } from "./ActionError";

export interface ShareRow {
  id: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  createdBy: string | null;
  state: ShareState;
}

const STATE_TONES: Record<ShareState, Tone> = { active: "good", expired: "neutral", revoked: "bad" };

function when(iso: string | null, fallback: string): string {
  return iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : fallback;
}

/** Share management of one report: create a link (its URL is shown once), list links with their state, revoke. */
export function SharePanel({
  reportId,
  shares,
  createShare,
  revokeShare,
}: {
  reportId: string;
  shares: ShareRow[];
  createShare: (input: {
    reportId: string;
    expiresIn: ExpiresIn;
  }) => Promise<ActionResult<{ id: string; url: string; expiresAt: string | null }>>;
  revokeShare: (input: { shareId: string }) => Promise<ActionResult<{ id: string; state: ShareState }>>;
}) {
  const [expiresIn, setExpiresIn] = useState<ExpiresIn>("7d");
  const [created, setCreated] = useState<{ id: string; url: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const { pending, error, run } = useActionForm();

  const onCreate = () =>
    run(
      () => createShare({ reportId, expiresIn }),
      (data) => {
        setCreated({ id: data.id, url: data.url });
        setCopied(false);
      },
    );

  const onRevoke = (shareId: string) =>
    run(
      () => revokeShare({ shareId }),
      () => {
        if (created?.id === shareId) setCreated(null);
      },
    );

  return (
    <Card aria-labelledby="share-heading" padding="lg">
      <h2 id="share-heading" className="text-sm font-semibold tracking-wide text-slate-900 uppercase">
        Share by link
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Anyone with the link sees this report read-only, and nothing else. Links can expire and can be revoked at any
        time.
      </p>
      <div className="mt-3 flex flex-wrap items-end gap-2">
        <label className="text-sm">
          <span className="block text-xs text-slate-500">Expires after</span>
          <select
            value={expiresIn}
            onChange={(e) => setExpiresIn(e.target.value as ExpiresIn)}
            className="mt-1 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm"
          >
            {(Object.keys(EXPIRY_LABELS) as ExpiresIn[]).map((k) => (
              <option key={k} value={k}>
                {EXPIRY_LABELS[k]}
              </option>
            ))}
          </select>
        </label>
        <Button onClick={onCreate} disabled={pending}>
          Create share link
        </Button>
      </div>
      <ActionError error={error} />
      {created ? (
        <div className="mt-3 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm">
          <p className="font-medium text-emerald-900">Copy this link now: it is shown only once.</p>
          <div className="mt-2 flex items-center gap-2">
            <input
              readOnly
              value={created.url}
              aria-label="Share link"
              data-testid="share-url"
              onFocus={(e) => e.currentTarget.select()}
              className="min-w-0 flex-1 rounded border border-emerald-300 bg-white px-2 py-1 font-mono text-xs"
            />
            <Button
              variant="success"
              size="sm"
              onClick={() => {
                void navigator.clipboard?.writeText(created.url).then(() => setCopied(true));
              }}
            >
              {copied ? "Copied" : "Copy"}
            </Button>
          </div>
        </div>
      ) : null}
      {shares.length === 0 ? (
        <p className="mt-4 text-sm text-slate-500">
          No links yet. Create one to share this report with people who do not use the dashboard.
        </p>
      ) : (
        <DataTable
          frame={false}
          dense
          className="mt-4"
          columns={["Created", "Expires", "State", { label: "Actions", srOnly: true }]}
        >
          {shares.map((s) => (
            <tr key={s.id} data-testid="share-row" data-share-id={s.id} data-state={s.state}>
              <td className="py-1.5 pr-2">
                {when(s.createdAt, "")}
                {/* Under the date, breaking where it must: in a column of its own, an email or key name widened the side column past the page. */}
                {s.createdBy ? (
                  <div className="text-xs text-slate-500 [overflow-wrap:anywhere]" data-testid="share-author">
                    by {s.createdBy}
                  </div>
                ) : null}
              </td>
              <td className="py-1.5 pr-2">{when(s.expiresAt, "never")}</td>
              <td className="py-1.5 pr-2">
                <Badge tone={STATE_TONES[s.state]}>{s.state}</Badge>
                {s.revokedAt ? <span className="ml-2 text-xs text-slate-500">{when(s.revokedAt, "")}</span> : null}
              </td>
              <td className="py-1.5 text-right">
                {s.state === "active" ? (
                  <Button variant="dangerOutline" size="xs" disabled={pending} onClick={() => onRevoke(s.id)}>
                    Revoke
                  </Button>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
