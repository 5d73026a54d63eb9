"use client";

import { useId, useMemo, useState } from "react";
import {
  exportSeed000ToolPolicy,
  exportSeed003Policy,
  type InterchangeIssue,
  type KnownTool,
  type Policy,
} from "@/lib/replay";
import { FORM_LABELS, importPolicyText, toolPolicyFlag } from "@/lib/policies/interchange";
import { pathLabel } from "./issues";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { TabPanel, Tabs } from "@/components/ui/Tabs";
import { useUrlState } from "@/components/ui/useUrlState";
import { PolicyFileInput } from "./PolicyFileInput";

function download(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.click();
  URL.revokeObjectURL(url);
}

function LossList({ issues, title }: { issues: readonly InterchangeIssue[]; title: string }) {
  if (issues.length === 0)
    return <p className="text-xs text-emerald-700">Everything in this policy is carried over.</p>;
  return (
    <div>
      <div className="text-xs font-semibold text-amber-900">{title}</div>
      <ul className="mt-1 space-y-1" data-testid="interchange-issues">
        {issues.map((i, k) => (
          <li key={k} className="rounded bg-amber-50 px-2 py-1 text-xs text-amber-900 ring-1 ring-amber-200">
            <code className="font-mono">{pathLabel(i.path)}</code> · {i.code.replaceAll("_", " ")}: {i.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Export as Kitaru --tool-policy JSON or policy-levels JSON; import either (or our own document). */
export function InterchangePanel({
  doc,
  name,
  knownTools,
  onImport,
}: {
  doc: Policy;
  name: string;
  knownTools: readonly KnownTool[];
  onImport: (doc: Policy) => void;
}) {
  const [tab, setTab] = useUrlState("format", ["seed-000", "seed-003", "import"], "seed-000");
  const tabsId = useId();
  const [copied, setCopied] = useState<string | null>(null);
  const [importText, setImportText] = useState("");
  const [importResult, setImportResult] = useState<ReturnType<typeof importPolicyText> | null>(null);

  const seed000 = useMemo(() => exportSeed000ToolPolicy(doc.tools), [doc.tools]);
  const seed003 = useMemo(() => exportSeed003Policy(doc), [doc]);
  const seed000Text = JSON.stringify(seed000.json, null, 2);
  const seed003Text = JSON.stringify(seed003.json, null, 2);
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "policy";

  const copy = async (label: string, text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(label);
    } catch {
      setCopied(null);
    }
  };

  return (
    <Card aria-label="Import and export">
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <h2 className="mr-2 text-sm font-semibold text-slate-900">Import and export</h2>
        <Tabs
          id={tabsId}
          tabs={[
            { value: "seed-000", label: "Kitaru --tool-policy" },
            { value: "seed-003", label: "Policy levels" },
            { value: "import", label: "Import" },
          ]}
          selected={tab}
          onSelect={setTab}
        />
      </div>
      <TabPanel id={tabsId} value={tab}>
        {tab === "seed-000" ? (
          <div className="space-y-3">
            <p className="text-xs text-slate-600">
              {"The tool rules as Kitaru --tool-policy JSON, ready for "}
              <code className="font-mono">kitaru experiment create --tool-policy …</code>. Run-level choices are not
              part of this form.
            </p>
            <pre
              data-testid="export-seed-000"
              className="max-h-72 overflow-auto rounded border border-slate-200 bg-slate-50 p-3 font-mono text-xs"
            >
              {seed000Text}
            </pre>
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" size="sm" onClick={() => void copy("json", seed000Text)}>
                {copied === "json" ? "Copied JSON" : "Copy JSON"}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => void copy("flag", toolPolicyFlag(seed000.json))}>
                {copied === "flag" ? "Copied flag" : "Copy as --tool-policy flag"}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => download(`${slug}.tool-policy.json`, seed000Text)}>
                Download
              </Button>
            </div>
            <LossList issues={seed000.issues} title="Not expressible in this form (reported, not dropped):" />
          </div>
        ) : null}
        {tab === "seed-003" ? (
          <div className="space-y-3">
            <p className="text-xs text-slate-600">
              The policy as policy-levels JSON (model, tool, drift, maxSteps): one named tool level instead of per-tool
              rules.
            </p>
            <pre
              data-testid="export-seed-003"
              className="max-h-72 overflow-auto rounded border border-slate-200 bg-slate-50 p-3 font-mono text-xs"
            >
              {seed003Text}
            </pre>
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" size="sm" onClick={() => void copy("003", seed003Text)}>
                {copied === "003" ? "Copied JSON" : "Copy JSON"}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => download(`${slug}.policy-levels.json`, seed003Text)}>
                Download
              </Button>
            </div>
            <LossList issues={seed003.issues} title="Not expressible in this form (reported, not dropped):" />
          </div>
        ) : null}
        {tab === "import" ? (
          <div className="space-y-3">
            <p className="text-xs text-slate-600">
              Paste or upload Kitaru --tool-policy JSON, policy-levels JSON or a Branchpoint document: the form is
              detected. It replaces the editor&apos;s document (unsaved until you save).
            </p>
            <textarea
              aria-label="Policy to import"
              className="h-36 w-full rounded-md border border-slate-300 p-2 font-mono text-xs"
              value={importText}
              onChange={(e) => setImportText(e.target.value)}
              placeholder='{"default": {"type": "history", "scope": "baseline", "on_miss": "fail"}, "tools": {}}'
            />
            <div className="flex flex-wrap items-center gap-2">
              <PolicyFileInput onText={setImportText} className="text-xs" />
              <Button
                size="sm"
                disabled={!importText.trim()}
                onClick={() => {
                  const result = importPolicyText(importText, { knownTools });
                  setImportResult(result);
                  if (result.ok) onImport(result.policy);
                }}
              >
                Import into editor
              </Button>
            </div>
            {importResult ? (
              importResult.ok ? (
                <div className="space-y-2">
                  <p role="status" className="text-xs text-emerald-700">
                    Imported a {FORM_LABELS[importResult.form]}.
                  </p>
                  <LossList issues={importResult.issues} title="Read with these notes:" />
                </div>
              ) : (
                <div>
                  <p role="alert" className="text-xs font-semibold text-rose-700">
                    Not imported{importResult.form ? ` (read as a ${FORM_LABELS[importResult.form]})` : ""}:
                  </p>
                  <ul className="mt-1 space-y-1">
                    {importResult.issues.map((i, k) => (
                      <li key={k} className="text-xs text-rose-700">
                        <code className="font-mono">{pathLabel(i.path)}</code>: {i.message}
                      </li>
                    ))}
                  </ul>
                </div>
              )
            ) : null}
          </div>
        ) : null}
      </TabPanel>
    </Card>
  );
}
