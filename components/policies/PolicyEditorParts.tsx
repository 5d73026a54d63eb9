"use client";

import Link from "next/link";
import { useMemo } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { TextInput } from "@/components/ui/Field";
import { JsonEditor } from "@/components/ui/monaco";
import { Notice } from "@/components/ui/Notice";
import type { AgentContext } from "@/lib/policies/validation";
import type { TextStatus } from "./editor-state";
import { pathLabel } from "./issues";

export type EditorNotice = { tone: "good" | "info" | "bad"; text: string } | null;

/** Above the editor: a restored draft (and discarding it), no saved version yet, and what saving did. */
export function EditorNotices({
  restoredAt,
  baseVersion,
  onDiscardRestored,
  hasSaved,
  notice,
}: {
  restoredAt: string | null;
  baseVersion: number;
  onDiscardRestored: (() => void) | null;
  hasSaved: boolean;
  notice: EditorNotice;
}) {
  return (
    <>
      {restoredAt ? (
        <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900 ring-1 ring-amber-200">
          Restored unsaved changes from {new Date(restoredAt).toLocaleString()} (a draft on version {baseVersion || "—"}{" "}
          kept in this browser).{" "}
          {onDiscardRestored ? (
            <Button variant="inherit" size="inline" onClick={onDiscardRestored}>
              Discard them
            </Button>
          ) : null}
        </p>
      ) : null}
      {!hasSaved ? (
        <p className="rounded-md bg-slate-100 px-3 py-2 text-xs text-slate-700">
          This policy has no saved version yet. Fix any errors below and save to create version 1.
        </p>
      ) : null}
      {notice ? (
        <Notice
          testId="save-notice"
          tone={notice.tone === "good" ? "success" : notice.tone === "info" ? "info" : "error"}
        >
          {notice.text}
        </Notice>
      ) : null}
    </>
  );
}

/** The editor's sticky bar: the saved version, unsaved changes, the hash, the counts of problems, the note and saving. */
export function PolicyToolbar({
  policyId,
  savedVersion,
  dirty,
  hash,
  errorCount,
  warningCount,
  note,
  onNote,
  onDiscard,
  onSave,
  canSave,
  saving,
}: {
  policyId: string;
  savedVersion: number | null;
  dirty: boolean;
  hash: string | null;
  errorCount: number;
  warningCount: number;
  note: string;
  onNote: (note: string) => void;
  /** Back to the saved version; null when there is none. */
  onDiscard: (() => void) | null;
  onSave: () => void;
  canSave: boolean;
  saving: boolean;
}) {
  return (
    <div className="sticky top-0 z-10 -mx-2 flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white/95 px-4 py-2 shadow-sm backdrop-blur">
      <div className="text-sm">
        {savedVersion !== null ? (
          <span className="text-slate-700">
            Version <strong data-testid="saved-version">{savedVersion}</strong>
          </span>
        ) : (
          <span className="text-slate-700">No saved version yet</span>
        )}
      </div>
      {dirty ? (
        <span data-testid="unsaved-flag">
          <Badge tone="warn">Unsaved changes</Badge>
        </span>
      ) : (
        <Badge tone="good">Saved</Badge>
      )}
      <span
        className="font-mono text-xs text-slate-500"
        title="SHA-256 of the canonical document"
        data-testid="document-hash"
      >
        {hash ? `hash ${hash.slice(0, 12)}` : "no hash (invalid document)"}
      </span>
      {errorCount > 0 ? <Badge tone="bad">{`${errorCount} error${errorCount === 1 ? "" : "s"}`}</Badge> : null}
      {warningCount > 0 ? <Badge tone="warn">{`${warningCount} warning${warningCount === 1 ? "" : "s"}`}</Badge> : null}
      <div className="ml-auto flex items-center gap-2">
        <TextInput
          aria-label="Version note"
          placeholder="note (optional)"
          className="w-48 rounded-md border border-slate-300 px-2 py-1 text-xs"
          value={note}
          onValue={onNote}
        />
        {dirty && onDiscard ? (
          <Button variant="ghost" size="sm" onClick={onDiscard}>
            Discard changes
          </Button>
        ) : null}
        <Button
          onClick={onSave}
          disabled={!canSave || saving}
          title={canSave ? "Save as a new immutable version" : "Fix the errors first"}
        >
          {saving ? "Saving…" : "Save version"}
        </Button>
        <Link href={`/policies/${policyId}/versions`} className="text-xs text-indigo-700 hover:underline">
          Versions
        </Link>
      </div>
    </div>
  );
}

/** Which agent the document is validated for (its adapter and capabilities), or that there is none. */
export function AgentContextNote({ agent }: { agent: AgentContext | null }) {
  return (
    <>
      {agent ? (
        <p className="text-xs text-slate-500">
          Validated for <strong>{agent.name}</strong>: adapter <code className="font-mono">{agent.adapter}</code>,
          capabilities{" "}
          {agent.capabilities.length > 0
            ? agent.capabilities.map((c) => (
                <code key={c} className="mr-1 font-mono">
                  {c}
                </code>
              ))
            : "none"}
          {agent.versionCount > 1 ? ` (common to its ${agent.versionCount} versions)` : ""}.
        </p>
      ) : (
        <p className="text-xs text-slate-500">
          No agent: checked against the schema and the rules that hold for any adapter.
        </p>
      )}
    </>
  );
}

/** The whole document in Monaco, with why it does not read as a policy when it does not. */
export function PolicyJsonPane({
  status,
  value,
  onText,
  policyId,
  schema,
}: {
  status: TextStatus;
  value: string;
  onText: (text: string) => void;
  policyId: string;
  schema: Record<string, unknown>;
}) {
  const schemaProp = useMemo(() => ({ uri: "inmemory://branchpoint/policy.schema.json", schema }), [schema]);
  return (
    <div className="min-w-0 space-y-3 xl:sticky xl:top-16 xl:self-start">
      <div className="flex items-center justify-between">
        <h2 className="text-sm font-semibold text-slate-900">Policy JSON</h2>
        <span className="text-xs text-slate-500">Edits here show on the left at once.</span>
      </div>
      {status.kind === "invalid_json" ? (
        <Notice tone="error" testId="json-status" small>
          Invalid JSON ({status.message}). The visual editor stays on the last valid document; saving is blocked until
          the JSON parses.
        </Notice>
      ) : status.kind === "invalid_schema" ? (
        <Notice tone="error" testId="json-status" small>
          The JSON is not a valid policy; the visual editor stays on the last valid document:
          <ul className="mt-1 list-disc pl-5">
            {status.issues.map((i, k) => (
              <li key={k}>
                <code className="font-mono">{pathLabel(i.path)}</code>: {i.message}
              </li>
            ))}
          </ul>
        </Notice>
      ) : null}
      <JsonEditor
        value={value}
        onChange={onText}
        path={`policy-${policyId}.json`}
        schema={schemaProp}
        height={520}
        ariaLabel="Policy JSON"
      />
    </div>
  );
}
