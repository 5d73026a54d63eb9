"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { overrideMap, SideEffect, type Policy, type PolicyIssue, type ToolRule } from "@/lib/replay";
import { FieldIssues } from "./FieldIssues";
import { issuesAt } from "./issues";
import { RuleEditor } from "./RuleEditor";
import { Button } from "@/components/ui/Button";
import { DataTable } from "@/components/ui/DataTable";
import { Card } from "@/components/ui/Card";

export type ToolRow = { name: string; calls: number; sideEffect: SideEffect };

function summary(rule: ToolRule): string {
  switch (rule.type) {
    case "history":
      return `history · ${rule.scope} · on miss ${rule.on_miss}`;
    case "static":
      return `static · ${rule.cases.length} case${rule.cases.length === 1 ? "" : "s"} · on miss ${rule.on_miss ?? "fail"}`;
    case "fixture":
      return `fixture · on miss ${rule.on_miss ?? "pause"}`;
    case "passthrough":
      return rule.approval === "per_call" ? "passthrough · per-call approval" : "passthrough";
    case "llm":
      return `llm · ${rule.model}`;
    case "blocked":
      return "blocked";
  }
}

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
  const [newName, setNewName] = useState("");
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
          <DataTable
            frame={false}
            dense
            className="mt-2"
            bodies
            columns={[
              "Tool",
              { label: "Calls", align: "right" },
              "Side effect",
              "Rule",
              { label: "Actions", srOnly: true },
            ]}
          >
            {rows.map((t) => {
              const override = overrides[t.name];
              const expanded = override !== undefined && open.has(t.name);
              const rowIssues = issuesAt(issues, ["tools", "overrides", t.name], { within: true });
              return (
                <tbody key={t.name} className="border-t border-slate-100" data-testid={`tool-row-${t.name}`}>
                  <tr>
                    <td className="py-2 pr-2 font-mono text-xs">
                      {t.name}
                      {rowIssues.some((i) => i.severity === "error") ? (
                        <span className="ml-1">
                          <Badge tone="bad">error</Badge>
                        </span>
                      ) : null}
                    </td>
                    <td className="py-2 pr-2 text-right tabular-nums text-slate-600">{t.calls}</td>
                    <td className="py-2 pr-2">
                      <select
                        aria-label={`Side effect of ${t.name}`}
                        disabled={!canDeclare}
                        title={canDeclare ? "Saved to the agent's tool" : "Attach an agent to declare side effects"}
                        className="rounded border border-slate-300 bg-white px-1 py-0.5 text-xs"
                        value={t.sideEffect}
                        onChange={(e) => onSideEffect(t.name, e.target.value as SideEffect)}
                      >
                        {SideEffect.options.map((s) => (
                          <option key={s} value={s}>
                            {s}
                          </option>
                        ))}
                      </select>
                    </td>
                    <td className="py-2 pr-2 text-xs text-slate-700">
                      {override ? (
                        summary(override)
                      ) : (
                        <span className="text-slate-500">default: {summary(doc.tools.default)}</span>
                      )}
                    </td>
                    <td className="py-2 text-right text-xs whitespace-nowrap">
                      {override ? (
                        <>
                          <Button
                            variant="link"
                            size="inline"
                            className="mr-2"
                            onClick={() => {
                              const next = new Set(open);
                              if (expanded) next.delete(t.name);
                              else next.add(t.name);
                              setOpen(next);
                            }}
                          >
                            {expanded ? "Close" : "Edit"}
                          </Button>
                          <Button
                            variant="dangerLink"
                            size="inline"
                            onClick={() => setOverride(t.name, null)}
                            aria-label={`Remove override for ${t.name}`}
                          >
                            Remove
                          </Button>
                        </>
                      ) : (
                        <Button
                          variant="link"
                          size="inline"
                          onClick={() => addOverride(t.name)}
                          aria-label={`Override ${t.name}`}
                        >
                          Override
                        </Button>
                      )}
                    </td>
                  </tr>
                  {expanded && override ? (
                    <tr>
                      <td colSpan={5} className="pb-4">
                        <div className="rounded-md border border-indigo-100 bg-indigo-50/30 p-3">
                          <RuleEditor
                            rule={override}
                            onChange={(rule) => setOverride(t.name, rule)}
                            path={["tools", "overrides", t.name]}
                            label={t.name}
                            issues={issues}
                            modelPath={`${modelPrefix}-${encodeURIComponent(t.name)}`}
                          />
                        </div>
                      </td>
                    </tr>
                  ) : !expanded && override ? (
                    <tr>
                      <td colSpan={5}>
                        <FieldIssues issues={rowIssues} />
                      </td>
                    </tr>
                  ) : null}
                </tbody>
              );
            })}
          </DataTable>
        )}
        <form
          className="mt-3 flex items-center gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            addOverride(newName);
            setNewName("");
          }}
        >
          <input
            aria-label="New override tool name"
            placeholder="tool name, e.g. get_current_time"
            className="w-64 rounded-md border border-slate-300 px-2 py-1 font-mono text-xs"
            value={newName}
            onChange={(e) => setNewName(e.target.value)}
          />
          <Button type="submit" variant="secondary" size="sm">
            Add override
          </Button>
          <span className="text-xs text-slate-500">for a tool not seen yet</span>
        </form>
      </div>
    </Card>
  );
}
