"use client";

import { useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { TextInput } from "@/components/ui/Field";
import { effectiveOnMiss, SideEffect, type PolicyIssue, type ToolRule } from "@/lib/replay";
import { APPROVAL_WORDS, ON_MISS_WORDS, RULE_TYPE_WORDS, SCOPE_WORDS, SIDE_EFFECT_WORDS } from "@/lib/policies/labels";
import { ValueWords } from "./EnumWords";
import { FieldIssues } from "./FieldIssues";
import { issuesAt } from "./issues";
import { RuleEditor } from "./RuleEditor";

export type ToolRow = { name: string; calls: number; sideEffect: SideEffect };

/** A rule in a few words: its type (with its raw value) and what answers when nothing matches. */
function RuleSummary({ rule }: { rule: ToolRule }) {
  const type = <ValueWords words={RULE_TYPE_WORDS[rule.type]} value={rule.type} />;
  const onMiss = effectiveOnMiss(rule);
  const detail =
    rule.type === "history"
      ? SCOPE_WORDS[rule.scope].label.toLowerCase()
      : rule.type === "static"
        ? `${rule.cases.length} case${rule.cases.length === 1 ? "" : "s"}`
        : rule.type === "passthrough" && rule.approval === "per_call"
          ? APPROVAL_WORDS.per_call.label.toLowerCase()
          : rule.type === "llm"
            ? rule.model
            : null;
  return (
    <>
      {type}
      {detail ? ` · ${detail}` : null}
      {onMiss ? ` · if none: ${ON_MISS_WORDS[onMiss].label.toLowerCase()}` : null}
    </>
  );
}

/** One tool in the tool table: its calls, its side-effect class, its rule (its own or the default), and its rule editor when open. */
export function ToolRuleRow({
  tool: t,
  override,
  defaultRule,
  expanded,
  onToggle,
  issues,
  canDeclare,
  onSideEffect,
  onRule,
  onOverride,
  modelPrefix,
}: {
  tool: ToolRow;
  override: ToolRule | undefined;
  defaultRule: ToolRule;
  expanded: boolean;
  onToggle: () => void;
  issues: readonly PolicyIssue[];
  canDeclare: boolean;
  onSideEffect: (tool: string, sideEffect: SideEffect) => void;
  /** The tool's own rule, or null to remove it (the default answers it again). */
  onRule: (rule: ToolRule | null) => void;
  onOverride: () => void;
  modelPrefix: string;
}) {
  const rowIssues = issuesAt(issues, ["tools", "overrides", t.name], { within: true });
  return (
    <tbody className="border-t border-slate-100" data-testid={`tool-row-${t.name}`}>
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
              <option key={s} value={s} title={SIDE_EFFECT_WORDS[s].help}>
                {SIDE_EFFECT_WORDS[s].label}
              </option>
            ))}
          </select>
        </td>
        <td className="py-2 pr-2 text-xs text-slate-700">
          {override ? (
            <RuleSummary rule={override} />
          ) : (
            <span className="text-slate-500">
              default: <RuleSummary rule={defaultRule} />
            </span>
          )}
        </td>
        <td className="py-2 text-right text-xs whitespace-nowrap">
          {override ? (
            <>
              <Button variant="link" size="inline" className="mr-2" onClick={onToggle}>
                {expanded ? "Close" : "Edit"}
              </Button>
              <Button
                variant="dangerLink"
                size="inline"
                onClick={() => onRule(null)}
                aria-label={`Remove override for ${t.name}`}
              >
                Remove
              </Button>
            </>
          ) : (
            <Button variant="link" size="inline" onClick={onOverride} aria-label={`Override ${t.name}`}>
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
                onChange={onRule}
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
}

/** Adds an override for a tool by its name (one the agent's sessions have not called yet). */
export function AddOverrideForm({ onAdd }: { onAdd: (name: string) => void }) {
  const [newName, setNewName] = useState("");
  return (
    <form
      className="mt-3 flex flex-wrap items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        onAdd(newName);
        setNewName("");
      }}
    >
      <TextInput
        aria-label="New override tool name"
        placeholder="tool name, e.g. get_current_time"
        className="w-64 rounded-md border border-slate-300 px-2 py-1 font-mono text-xs"
        value={newName}
        onValue={setNewName}
      />
      <Button type="submit" variant="secondary" size="sm">
        Add override
      </Button>
      <span className="text-xs text-slate-500">for a tool not seen yet</span>
    </form>
  );
}
