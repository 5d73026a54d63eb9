"use client";

import { useId, useMemo, useState } from "react";
import { exportSeed000ToolPolicy, exportSeed003Policy, plainPolicy, type KnownTool, type Policy } from "@/lib/replay";
import { importPolicyText, toolPolicyFlag } from "@/lib/policies/interchange";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { TabPanel, Tabs } from "@/components/ui/Tabs";
import { useUrlState } from "@/components/ui/useUrlState";
import { ImportPane, LossList } from "./InterchangeParts";

function download(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.click();
  URL.revokeObjectURL(url);
}

/** Export as Branchpoint's own document (the default), Kitaru --tool-policy JSON or policy-levels JSON; import any of them. */
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
  // Opens on the app's own document: nothing is lost there; the foreign forms say what they cannot carry.
  const [tab, setTab] = useUrlState("format", ["branchpoint", "seed-000", "seed-003", "import"], "branchpoint");
  const tabsId = useId();
  const [copied, setCopied] = useState<string | null>(null);
  const [importText, setImportText] = useState("");
  const [importResult, setImportResult] = useState<ReturnType<typeof importPolicyText> | null>(null);

  const seed000 = useMemo(() => exportSeed000ToolPolicy(doc.tools), [doc.tools]);
  const seed003 = useMemo(() => exportSeed003Policy(doc), [doc]);
  const seed000Text = JSON.stringify(seed000.json, null, 2);
  const seed003Text = JSON.stringify(seed003.json, null, 2);
  const ownText = useMemo(() => JSON.stringify(plainPolicy(doc), null, 2), [doc]);
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
            { value: "branchpoint", label: "Branchpoint JSON" },
            { value: "seed-000", label: "Kitaru --tool-policy" },
            { value: "seed-003", label: "Policy levels" },
            { value: "import", label: "Import" },
          ]}
          selected={tab}
          onSelect={setTab}
        />
      </div>
      <TabPanel id={tabsId} value={tab}>
        {tab === "branchpoint" ? (
          <div className="space-y-3">
            <p className="text-xs text-slate-600">
              The whole policy as Branchpoint reads it (the API&apos;s <code className="font-mono">policy</code> field,
              or a file to import here later). Every choice is carried over.
            </p>
            <pre
              data-testid="export-branchpoint"
              className="max-h-72 overflow-auto rounded border border-slate-200 bg-slate-50 p-3 font-mono text-xs"
            >
              {ownText}
            </pre>
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" size="sm" onClick={() => void copy("own", ownText)}>
                {copied === "own" ? "Copied JSON" : "Copy JSON"}
              </Button>
              <Button variant="secondary" size="sm" onClick={() => download(`${slug}.policy.json`, ownText)}>
                Download
              </Button>
            </div>
          </div>
        ) : null}
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
          <ImportPane
            text={importText}
            onText={setImportText}
            result={importResult}
            onImport={() => {
              const result = importPolicyText(importText, { knownTools });
              setImportResult(result);
              if (result.ok) onImport(result.policy);
            }}
          />
        ) : null}
      </TabPanel>
    </Card>
  );
}
