"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useReducer, useState, useTransition } from "react";
import { savePolicyVersionAction, setToolSideEffectAction } from "@/lib/actions/policies";
import { Badge } from "@/components/ui/Badge";
import { JsonEditor } from "@/components/ui/monaco";
import type { AgentTool, RecordedCall } from "@/lib/db/policies";
import {
  plainPolicy,
  policyHash,
  RECOMMENDED_RCA_POLICY,
  type Policy,
  type PolicyIssue,
  type SideEffect,
} from "@/lib/replay";
import { draftKey, editorReducer, initialEditorState, isDirty, parseDraft, restoreDraft } from "./editor-state";
import { FieldIssues } from "./FieldIssues";
import { InterchangePanel } from "./InterchangePanel";
import { pathLabel } from "./issues";
import { RunLevelControls } from "./RunLevelControls";
import { ToolTable } from "./ToolTable";
import { TryRulePanel } from "./TryRulePanel";
import { validateInContext, type AgentContext } from "@/lib/policies/validation";
import { Button } from "@/components/ui/Button";
import { Notice } from "@/components/ui/Notice";

export type SavedPolicyVersion = { version: number; hash: string; document: Policy };

type Notice = { tone: "good" | "info" | "bad"; text: string } | null;

function safeHash(doc: Policy): string | null {
  try {
    return policyHash(doc);
  } catch {
    return null;
  }
}

/**
 * The policy editor: the visual side (run-level controls, the tool table and
 * rule editors) and the whole document in Monaco, one document between them.
 * Validation runs on every change in the agent's context; errors block saving.
 */
export function PolicyEditor({
  policyId,
  name,
  agent,
  tools: initialTools,
  saved: initialSaved,
  schema,
  calls,
}: {
  policyId: string;
  name: string;
  agent: AgentContext | null;
  tools: AgentTool[];
  saved: SavedPolicyVersion | null;
  schema: Record<string, unknown>;
  calls: RecordedCall[];
}) {
  const router = useRouter();
  const [saved, setSaved] = useState(initialSaved);
  const [state, dispatch] = useReducer(
    editorReducer,
    initialSaved?.document ?? RECOMMENDED_RCA_POLICY,
    initialEditorState,
  );
  const [hydrated, setHydrated] = useState(false);
  const [restoredAt, setRestoredAt] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const [serverIssues, setServerIssues] = useState<PolicyIssue[]>([]);
  const [note, setNote] = useState("");
  const [tools, setTools] = useState(initialTools);
  const [saving, startSaving] = useTransition();
  const baseVersion = saved?.version ?? 0;
  const key = draftKey(policyId, baseVersion);

  // Restore a draft of this policy and base version (unsaved changes survive a reload).
  useEffect(() => {
    const draft = parseDraft(window.localStorage.getItem(key));
    if (draft) {
      dispatch({ type: "restore", state: restoreDraft(initialSaved?.document ?? RECOMMENDED_RCA_POLICY, draft) });
      setRestoredAt(draft.savedAt);
    }
    setHydrated(true);
    // Once, on mount.
  }, []);

  const dirty = isDirty(state, saved?.document ?? null);
  useEffect(() => {
    if (!hydrated) return;
    if (dirty)
      window.localStorage.setItem(key, JSON.stringify({ text: state.text, savedAt: new Date().toISOString() }));
    else window.localStorage.removeItem(key);
  }, [hydrated, dirty, key, state.text]);

  const agentNow = useMemo<AgentContext | null>(
    () => (agent ? { ...agent, tools: tools.map((t) => ({ name: t.name, sideEffect: t.sideEffect })) } : null),
    [agent, tools],
  );
  const validation = useMemo(() => validateInContext(state.doc, agentNow), [state.doc, agentNow]);
  const textIssues = state.status.kind === "invalid_schema" ? state.status.issues : [];
  const errors = [...validation.errors, ...textIssues];
  const issues: PolicyIssue[] = [...errors, ...validation.warnings];
  const canSave = state.status.kind === "ok" && validation.ok;
  const hash = safeHash(state.doc);
  const schemaProp = useMemo(() => ({ uri: "inmemory://branchpoint/policy.schema.json", schema }), [schema]);

  const edit = (doc: Policy) => {
    setNotice(null);
    setServerIssues([]);
    dispatch({ type: "visual", doc });
  };

  const save = () => {
    startSaving(async () => {
      const result = await savePolicyVersionAction({
        policyId,
        document: plainPolicy(state.doc),
        ...(note.trim() ? { note: note.trim() } : {}),
      });
      if (!result.ok) {
        setNotice({ tone: "bad", text: result.error.message });
        setServerIssues(
          result.error.issues.map((i) => ({
            code: "schema",
            severity: "error",
            path: [],
            message: `${i.path}: ${i.message}`,
          })),
        );
        return;
      }
      const v = result.data;
      window.localStorage.removeItem(key);
      setRestoredAt(null);
      setNote("");
      if (v.created) {
        setSaved({ version: v.version, hash: v.hash, document: state.doc });
        setNotice({ tone: "good", text: `Saved version ${v.version} (hash ${v.hash.slice(0, 12)}).` });
      } else {
        setSaved({ version: v.version, hash: v.hash, document: state.doc });
        setNotice({
          tone: "info",
          text: `No change: this document is version ${v.version} already (same hash ${v.hash.slice(0, 12)}), so no new version was created.`,
        });
      }
      router.refresh();
    });
  };

  const setSideEffect = (tool: string, sideEffect: SideEffect) => {
    if (!agent) return;
    setTools((current) =>
      current.some((t) => t.name === tool)
        ? current.map((t) => (t.name === tool ? { ...t, sideEffect } : t))
        : [...current, { name: tool, sideEffect, calls: 0, declared: true }],
    );
    void setToolSideEffectAction({ agentId: agent.id, tool, sideEffect }).then((r) => {
      if (!r.ok) setNotice({ tone: "bad", text: `Side effect of ${tool} not saved: ${r.error.message}` });
    });
  };

  return (
    <div className="space-y-4">
      <div className="sticky top-0 z-10 -mx-2 flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white/95 px-4 py-2 shadow-sm backdrop-blur">
        <div className="text-sm">
          {saved ? (
            <span className="text-slate-700">
              Version <strong data-testid="saved-version">{saved.version}</strong>
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
        {errors.length > 0 ? (
          <Badge tone="bad">{`${errors.length} error${errors.length === 1 ? "" : "s"}`}</Badge>
        ) : null}
        {validation.warnings.length > 0 ? (
          <Badge tone="warn">{`${validation.warnings.length} warning${validation.warnings.length === 1 ? "" : "s"}`}</Badge>
        ) : null}
        <div className="ml-auto flex items-center gap-2">
          <input
            aria-label="Version note"
            placeholder="note (optional)"
            className="w-48 rounded-md border border-slate-300 px-2 py-1 text-xs"
            value={note}
            onChange={(e) => setNote(e.target.value)}
          />
          {dirty && saved ? (
            <Button variant="ghost" size="sm" onClick={() => dispatch({ type: "reset", doc: saved.document })}>
              Discard changes
            </Button>
          ) : null}
          <Button
            onClick={save}
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

      {restoredAt ? (
        <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-xs text-amber-900 ring-1 ring-amber-200">
          Restored unsaved changes from {new Date(restoredAt).toLocaleString()} (a draft on version {baseVersion || "—"}{" "}
          kept in this browser).{" "}
          {saved ? (
            <Button
              variant="inherit"
              size="inline"
              onClick={() => {
                dispatch({ type: "reset", doc: saved.document });
                setRestoredAt(null);
              }}
            >
              Discard them
            </Button>
          ) : null}
        </p>
      ) : null}
      {!saved ? (
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
      <FieldIssues issues={serverIssues} />
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

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
        <div className="min-w-0 space-y-4">
          <RunLevelControls doc={state.doc} onChange={edit} issues={issues} />
          <ToolTable
            doc={state.doc}
            onChange={edit}
            issues={issues}
            tools={tools}
            onSideEffect={setSideEffect}
            canDeclare={agent !== null}
            modelPrefix={`policy-${policyId}`}
          />
          <FieldIssues issues={issues.filter((i) => i.path.length === 1 && i.path[0] === "tools")} />
        </div>
        <div className="min-w-0 space-y-3 xl:sticky xl:top-16 xl:self-start">
          <div className="flex items-center justify-between">
            <h2 className="text-sm font-semibold text-slate-900">Policy JSON</h2>
            <span className="text-xs text-slate-500">Edits here show on the left at once.</span>
          </div>
          {state.status.kind === "invalid_json" ? (
            <Notice tone="error" testId="json-status" small>
              Invalid JSON ({state.status.message}). The visual editor stays on the last valid document; saving is
              blocked until the JSON parses.
            </Notice>
          ) : state.status.kind === "invalid_schema" ? (
            <Notice tone="error" testId="json-status" small>
              The JSON is not a valid policy; the visual editor stays on the last valid document:
              <ul className="mt-1 list-disc pl-5">
                {state.status.issues.map((i, k) => (
                  <li key={k}>
                    <code className="font-mono">{pathLabel(i.path)}</code>: {i.message}
                  </li>
                ))}
              </ul>
            </Notice>
          ) : null}
          <JsonEditor
            value={state.external}
            onChange={(text) => {
              setNotice(null);
              dispatch({ type: "text", text });
            }}
            path={`policy-${policyId}.json`}
            schema={schemaProp}
            height={520}
            ariaLabel="Policy JSON"
          />
        </div>
      </div>

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
        <InterchangePanel doc={state.doc} name={name} knownTools={agentNow?.tools ?? []} onImport={edit} />
        <TryRulePanel agentId={agent?.id ?? null} calls={calls} doc={state.doc} disabled={state.status.kind !== "ok"} />
      </div>
    </div>
  );
}
