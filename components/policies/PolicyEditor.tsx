"use client";

import { useRouter } from "next/navigation";
import { useMemo, useReducer, useState, useTransition } from "react";
import { savePolicyVersionAction } from "@/lib/actions/policies";
import type { AgentTool, RecordedCall } from "@/lib/db/policies";
import { plainPolicy, policyHash, RECOMMENDED_RCA_POLICY, type Policy, type PolicyIssue } from "@/lib/replay";
import { draftKey, editorReducer, initialEditorState, isDirty } from "./editor-state";
import { FieldIssues } from "./FieldIssues";
import { InterchangePanel } from "./InterchangePanel";
import { AgentContextNote, EditorNotices, PolicyJsonPane, PolicyToolbar, type EditorNotice } from "./PolicyEditorParts";
import { RunLevelControls } from "./RunLevelControls";
import { ToolTable } from "./ToolTable";
import { TryRulePanel } from "./TryRulePanel";
import { useBrowserDraft } from "./useBrowserDraft";
import { useToolSideEffects } from "./useToolSideEffects";
import { validateInContext, type AgentContext } from "@/lib/policies/validation";

export type SavedPolicyVersion = { version: number; hash: string; document: Policy };

/** A problem the server named, shown as an error of the whole document with its path in front. */
function asPolicyIssue(i: { path: string; message: string }): PolicyIssue {
  return { code: "schema", severity: "error", path: [], message: `${i.path}: ${i.message}` };
}

/** What saving did: a new version, or none because the document is a saved version already. */
function savedNotice(v: { version: number; hash: string; created: boolean }): EditorNotice {
  return v.created
    ? { tone: "good", text: `Saved version ${v.version} (hash ${v.hash.slice(0, 12)}).` }
    : {
        tone: "info",
        text: `No change: this document is version ${v.version} already (same hash ${v.hash.slice(0, 12)}), so no new version was created.`,
      };
}

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
  const [notice, setNotice] = useState<EditorNotice>(null);
  const [serverIssues, setServerIssues] = useState<PolicyIssue[]>([]);
  const [note, setNote] = useState("");
  const [tools, setSideEffect] = useToolSideEffects(agent?.id ?? null, initialTools, (text) =>
    setNotice({ tone: "bad", text }),
  );
  const [saving, startSaving] = useTransition();
  const baseVersion = saved?.version ?? 0;
  const key = draftKey(policyId, baseVersion);

  const dirty = isDirty(state, saved?.document ?? null);
  const [restoredAt, setRestoredAt] = useBrowserDraft({
    key,
    base: initialSaved?.document ?? RECOMMENDED_RCA_POLICY,
    dirty,
    text: state.text,
    onRestore: (restored) => dispatch({ type: "restore", state: restored }),
  });

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
        setServerIssues(result.error.issues.map(asPolicyIssue));
        return;
      }
      const v = result.data;
      window.localStorage.removeItem(key);
      setRestoredAt(null);
      setNote("");
      setSaved({ version: v.version, hash: v.hash, document: state.doc });
      setNotice(savedNotice(v));
      router.refresh();
    });
  };

  return (
    <div className="space-y-4">
      <PolicyToolbar
        policyId={policyId}
        savedVersion={saved?.version ?? null}
        dirty={dirty}
        hash={hash}
        errorCount={errors.length}
        warningCount={validation.warnings.length}
        note={note}
        onNote={setNote}
        onDiscard={saved ? () => dispatch({ type: "reset", doc: saved.document }) : null}
        onSave={save}
        canSave={canSave}
        saving={saving}
      />

      <EditorNotices
        restoredAt={restoredAt}
        baseVersion={baseVersion}
        onDiscardRestored={
          saved
            ? () => {
                dispatch({ type: "reset", doc: saved.document });
                setRestoredAt(null);
              }
            : null
        }
        hasSaved={saved !== null}
        notice={notice}
      />
      <FieldIssues issues={serverIssues} />
      <AgentContextNote agent={agent} />

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
        <PolicyJsonPane
          status={state.status}
          value={state.external}
          onText={(text) => {
            setNotice(null);
            dispatch({ type: "text", text });
          }}
          policyId={policyId}
          schema={schema}
        />
      </div>

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-2">
        <InterchangePanel doc={state.doc} name={name} knownTools={agentNow?.tools ?? []} onImport={edit} />
        <TryRulePanel agentId={agent?.id ?? null} calls={calls} doc={state.doc} disabled={state.status.kind !== "ok"} />
      </div>
    </div>
  );
}
