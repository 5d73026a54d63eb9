"use client";

import { useState } from "react";
import { overrideMap, type Policy, type PolicyIssue, type SideEffect, type ToolRule } from "@/lib/replay";
import { RuleEditor } from "./RuleEditor";
import { DataTable, numberColumn } from "@/components/ui/DataTable";
import { ScrollFrame } from "@/components/ui/ScrollFrame";
import { Card } from "@/components/ui/Card";
import { AddOverrideForm, ToolRuleRow, type ToolRow } from "./ToolRuleRow";

export type { ToolRow };

/**
 * The tool table: the default rule, then every tool of the agent (how often
 * its sessions called it, its side-effect class) and every override, each
 * with its rule editor.
 */
export function ToolTable({
  doc,
  onChange,
  issues,
  tools,
  onSideEffect,
  canDeclare,
  modelPrefix,
}: {
  doc: Policy;
  onChange: (doc: Policy) => void;
  issues: readonly PolicyIssue[];
  tools: readonly ToolRow[];
  onSideEffect: (tool: string, sideEffect: SideEffect) => void;
  canDeclare: boolean;
  modelPrefix: string;
}) {
  const overrides = doc.tools.overrides ?? {};
  const [open, setOpen] = useState<Set<string>>(() => new Set(Object.keys(overrides)));
  const known = new Map(tools.map((t) => [t.name, t]));
  const rows: ToolRow[] = [
    ...tools,
    ...Object.keys(overrides)
      .filter((n) => !known.has(n))
      .map((name) => ({ name, calls: 0, sideEffect: "unknown" as const })),
  ];

  const setOverride = (name: string, rule: ToolRule | null) => {
    // A null-prototype map: a tool named "__proto__" is stored as a tool, not as the object's prototype.
    const next = overrideMap(Object.entries(overrides));
    if (rule) next[name] = rule;
    else delete next[name];
    const { overrides: _o, ...tools } = doc.tools;
    void _o;
    onChange({ ...doc, tools: Object.keys(next).length > 0 ? { ...tools, overrides: next } : tools });
  };
  const addOverride = (name: string) => {
    const trimmed = name.trim();
    if (!trimmed) return;
    if (!Object.prototype.hasOwnProperty.call(overrides, trimmed)) setOverride(trimmed, doc.tools.default);
    setOpen(new Set([...open, trimmed]));
  };

  return (
    <Card padding="none" aria-label="Tool rules">
      <div className="border-b border-slate-200 p-4">
        <h2 className="text-sm font-semibold text-slate-900">Default rule</h2>
        <p className="mb-3 text-xs text-slate-500">
          Answers every tool without an override below, including tools not seen yet.
        </p>
        <RuleEditor
          rule={doc.tools.default}
          onChange={(rule) => onChange({ ...doc, tools: { ...doc.tools, default: rule } })}
          path={["tools", "default"]}
          label="default"
          issues={issues}
          modelPath={`${modelPrefix}-default`}
        />
      </div>
      <div className="p-4">
        <h2 className="text-sm font-semibold text-slate-900">Tools</h2>
        {rows.length === 0 ? (
          <p className="mt-2 rounded border border-dashed border-slate-300 px-3 py-3 text-xs text-slate-500">
            No tools known for this policy{canDeclare ? " yet: the agent's sessions called none" : " (it has no agent)"}
            . Add an override by the tool&apos;s name below.
          </p>
        ) : (
          // On a phone the table is wider than the screen: it scrolls in its own box, not the page.
          <ScrollFrame className="mt-2 overflow-x-auto" label="Tools and their rules">
            <DataTable
              frame={false}
              dense
              bodies
              columns={["Tool", numberColumn("Calls"), "Side effect", "Rule", { label: "Actions", srOnly: true }]}
            >
              {rows.map((t) => {
                const override = overrides[t.name];
                return (
                  <ToolRuleRow
                    key={t.name}
                    tool={t}
                    override={override}
                    defaultRule={doc.tools.default}
                    expanded={override !== undefined && open.has(t.name)}
                    onToggle={() => {
                      const next = new Set(open);
                      if (next.has(t.name)) next.delete(t.name);
                      else next.add(t.name);
                      setOpen(next);
                    }}
                    issues={issues}
                    canDeclare={canDeclare}
                    onSideEffect={onSideEffect}
                    onRule={(rule) => setOverride(t.name, rule)}
                    onOverride={() => addOverride(t.name)}
                    modelPrefix={modelPrefix}
                  />
                );
              })}
            </DataTable>
          </ScrollFrame>
        )}
        <AddOverrideForm onAdd={addOverride} />
      </div>
    </Card>
  );
}
