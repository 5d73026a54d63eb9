"use client";

import type {
  HistoryScope,
  JsonPath,
  MatchMode,
  OnMiss,
  PolicyIssue,
  StaticCase,
  ToolRule,
  ToolRuleType,
} from "@/lib/replay";
import { APPROVAL_WORDS, MATCH_MODE_WORDS, ON_MISS_WORDS, RULE_TYPE_WORDS, SCOPE_WORDS } from "@/lib/policies/labels";
import {
  Approval,
  HistoryScope as Scopes,
  MatchMode as MatchModes,
  OnMiss as OnMisses,
  ToolRule as ToolRules,
} from "@/lib/replay";
import { ChoiceHelp, RawValue } from "./EnumWords";
import { FieldIssues } from "./FieldIssues";
import { issuesAt } from "./issues";
import { JsonValueEditor } from "./JsonValueEditor";
import { Button } from "@/components/ui/Button";

/** The rule types, in the order the editor offers them. */
const RULE_TYPES = ToolRules.options.map((o) => o.shape.type.value);

/** A rule of another type, keeping what carries over (on_miss). */
export function ruleOfType(type: ToolRuleType, previous: ToolRule): ToolRule {
  const onMiss = "on_miss" in previous && previous.on_miss ? previous.on_miss : undefined;
  switch (type) {
    case "history":
      return { type, scope: "baseline", on_miss: onMiss ?? "fail" };
    case "static":
      return { type, cases: [], on_miss: onMiss ?? "fail" };
    case "fixture":
      return { type, on_miss: onMiss ?? "pause" };
    case "passthrough":
      return { type };
    case "llm":
      return { type, model: "simulator" };
    case "blocked":
      return { type };
  }
}

const selectClass = "mt-1 block w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm";
const labelClass = "block text-xs font-medium text-slate-600";

/** The fields of one tool rule: type, scope, on_miss, approval, and for `static` its ordered cases. */
export function RuleEditor({
  rule,
  onChange,
  path,
  label,
  issues,
  modelPath,
}: {
  rule: ToolRule;
  onChange: (rule: ToolRule) => void;
  path: JsonPath;
  /** Names the rule in accessible labels: "default" or the tool's name. */
  label: string;
  issues: readonly PolicyIssue[];
  /** Prefix for Monaco model paths of this rule's editors. */
  modelPath: string;
}) {
  const own = issuesAt(issues, path);
  const at = (field: string) => issuesAt(issues, [...path, field]);
  return (
    <div className="space-y-3" data-testid={`rule-${label}`}>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <label className={labelClass}>
          Type
          <select
            aria-label={`Rule type for ${label}`}
            className={selectClass}
            value={rule.type}
            onChange={(e) => onChange(ruleOfType(e.target.value as ToolRuleType, rule))}
          >
            {RULE_TYPES.map((t) => (
              <option key={t} value={t}>
                {RULE_TYPE_WORDS[t].label}
              </option>
            ))}
          </select>
          <ChoiceHelp words={RULE_TYPE_WORDS[rule.type]} value={rule.type} />
        </label>
        {rule.type === "history" ? (
          <label className={labelClass}>
            Scope
            <select
              aria-label={`Scope for ${label}`}
              className={selectClass}
              value={rule.scope}
              onChange={(e) => onChange({ ...rule, scope: e.target.value as HistoryScope })}
            >
              {Scopes.options.map((s) => (
                <option key={s} value={s}>
                  {SCOPE_WORDS[s].label}
                </option>
              ))}
            </select>
            <ChoiceHelp words={SCOPE_WORDS[rule.scope]} value={rule.scope} />
            <FieldIssues issues={at("scope")} />
          </label>
        ) : null}
        {rule.type === "history" || rule.type === "static" || rule.type === "fixture" ? (
          <OnMissField rule={rule} onChange={onChange} label={label} issues={at("on_miss")} />
        ) : null}
        {rule.type === "passthrough" ? (
          <label className={labelClass}>
            Approval
            <select
              aria-label={`Approval for ${label}`}
              className={selectClass}
              value={rule.approval ?? ""}
              onChange={(e) => {
                const v = e.target.value;
                onChange(
                  v === "none" || v === "per_call" ? { type: "passthrough", approval: v } : { type: "passthrough" },
                );
              }}
            >
              <option value="">Not set</option>
              {Approval.options.map((a) => (
                <option key={a} value={a}>
                  {APPROVAL_WORDS[a].label}
                </option>
              ))}
            </select>
            {rule.approval ? <ChoiceHelp words={APPROVAL_WORDS[rule.approval]} value={rule.approval} /> : null}
            <FieldIssues issues={at("approval")} />
          </label>
        ) : null}
        {rule.type === "llm" ? (
          <label className={labelClass}>
            Model
            <input
              aria-label={`Simulator model for ${label}`}
              className={selectClass}
              value={rule.model}
              onChange={(e) => onChange({ ...rule, model: e.target.value })}
            />
            <FieldIssues issues={at("model")} />
          </label>
        ) : null}
      </div>
      {rule.type === "llm" ? (
        <label className={labelClass}>
          Instructions
          <textarea
            aria-label={`Simulator instructions for ${label}`}
            className={`${selectClass} h-20 font-mono text-xs`}
            value={rule.instructions ?? ""}
            onChange={(e) => {
              const { instructions: _old, ...rest } = rule;
              void _old;
              onChange(e.target.value ? { ...rest, instructions: e.target.value } : rest);
            }}
          />
        </label>
      ) : null}
      {rule.type === "static" ? (
        <StaticCases
          cases={rule.cases}
          onChange={(cases) => onChange({ ...rule, cases })}
          path={[...path, "cases"]}
          label={label}
          issues={issues}
          modelPath={modelPath}
        />
      ) : null}
      <FieldIssues issues={own} testId={`issues-${label}`} />
    </div>
  );
}

/** What answers when a history, static or fixture rule finds nothing. */
function OnMissField({
  rule,
  onChange,
  label,
  issues,
}: {
  rule: Extract<ToolRule, { type: "history" | "static" | "fixture" }>;
  onChange: (rule: ToolRule) => void;
  label: string;
  issues: readonly PolicyIssue[];
}) {
  return (
    <label className={labelClass}>
      On miss
      <select
        aria-label={`On miss for ${label}`}
        className={selectClass}
        value={rule.on_miss ?? ""}
        onChange={(e) => {
          const v = e.target.value as OnMiss | "";
          if (rule.type === "history") onChange({ ...rule, on_miss: v || "fail" });
          else {
            const { on_miss: _old, ...rest } = rule;
            void _old;
            onChange(v ? { ...rest, on_miss: v } : rest);
          }
        }}
      >
        {rule.type !== "history" ? (
          <option value="">
            Not set: {ON_MISS_WORDS[rule.type === "static" ? "fail" : "pause"].label.toLowerCase()}
          </option>
        ) : null}
        {OnMisses.options.map((o) => (
          <option key={o} value={o}>
            {ON_MISS_WORDS[o].label}
          </option>
        ))}
      </select>
      {rule.on_miss ? <ChoiceHelp words={ON_MISS_WORDS[rule.on_miss]} value={rule.on_miss} /> : null}
      <FieldIssues issues={issues} />
    </label>
  );
}

function StaticCases({
  cases,
  onChange,
  path,
  label,
  issues,
  modelPath,
}: {
  cases: StaticCase[];
  onChange: (cases: StaticCase[]) => void;
  path: JsonPath;
  label: string;
  issues: readonly PolicyIssue[];
  modelPath: string;
}) {
  const set = (index: number, next: StaticCase) => onChange(cases.map((c, k) => (k === index ? next : c)));
  const move = (index: number, by: number) => {
    const to = index + by;
    if (to < 0 || to >= cases.length) return;
    const next = [...cases];
    const [item] = next.splice(index, 1);
    if (item) next.splice(to, 0, item);
    onChange(next);
  };
  return (
    <div className="space-y-2">
      <div className="text-xs font-medium text-slate-600">Cases, in order: the first that matches answers</div>
      {cases.length === 0 ? (
        <p className="rounded border border-dashed border-slate-300 px-3 py-2 text-xs text-slate-500">
          No cases yet: every call follows on miss. Add a case to return a configured result.
        </p>
      ) : null}
      <ol className="space-y-3">
        {cases.map((c, index) => (
          <li
            key={index}
            className="rounded-md border border-slate-200 bg-slate-50 p-3"
            data-testid={`case-${label}-${index}`}
          >
            <div className="mb-2 flex flex-wrap items-center gap-3 text-xs">
              <span className="font-semibold text-slate-700">Case {index + 1}</span>
              <label className="flex items-center gap-1 text-slate-600">
                Match
                <select
                  aria-label={`Match mode of case ${index + 1} for ${label}`}
                  className="rounded border border-slate-300 bg-white px-1 py-0.5"
                  value={c.match_mode}
                  onChange={(e) => set(index, { ...c, match_mode: e.target.value as MatchMode })}
                >
                  {MatchModes.options.map((m) => (
                    <option key={m} value={m} title={MATCH_MODE_WORDS[m].help}>
                      {MATCH_MODE_WORDS[m].label}
                    </option>
                  ))}
                </select>
                <RawValue value={c.match_mode} />
              </label>
              <label className="flex items-center gap-1 text-slate-600">
                <input
                  type="checkbox"
                  aria-label={`Case ${index + 1} for ${label} matches anything`}
                  checked={!("match" in c)}
                  onChange={(e) => {
                    if (e.target.checked) {
                      const { match: _m, ...rest } = c;
                      void _m;
                      set(index, rest);
                    } else set(index, { ...c, match: {} });
                  }}
                />
                matches anything
              </label>
              <span className="ml-auto flex gap-1">
                <Button
                  variant="ghost"
                  size="icon"
                  disabled={index === 0}
                  onClick={() => move(index, -1)}
                  aria-label={`Move case ${index + 1} up`}
                >
                  ↑
                </Button>
                <Button
                  variant="ghost"
                  size="icon"
                  disabled={index === cases.length - 1}
                  onClick={() => move(index, 1)}
                  aria-label={`Move case ${index + 1} down`}
                >
                  ↓
                </Button>
                <Button variant="dangerGhost" size="icon" onClick={() => onChange(cases.filter((_, k) => k !== index))}>
                  Remove
                </Button>
              </span>
            </div>
            <div className="grid grid-cols-1 gap-2 md:grid-cols-2">
              <div>
                <div className="mb-1 text-xs text-slate-500">match (arguments)</div>
                {"match" in c ? (
                  <JsonValueEditor
                    value={c.match}
                    onChange={(match) => set(index, { ...c, match })}
                    path={`${modelPath}-case-${index}-match.json`}
                    ariaLabel={`Match of case ${index + 1} for ${label}`}
                  />
                ) : (
                  <p className="rounded border border-slate-200 bg-white px-2 py-2 text-xs text-slate-500">
                    Any arguments.
                  </p>
                )}
              </div>
              <div>
                <div className="mb-1 text-xs text-slate-500">result (returned to the agent)</div>
                <JsonValueEditor
                  value={c.result ?? null}
                  onChange={(result) => set(index, { ...c, result })}
                  path={`${modelPath}-case-${index}-result.json`}
                  ariaLabel={`Result of case ${index + 1} for ${label}`}
                />
              </div>
            </div>
            <FieldIssues issues={issuesAt(issues, [...path, index], { within: true })} />
          </li>
        ))}
      </ol>
      <Button
        variant="secondary"
        size="sm"
        onClick={() => onChange([...cases, { match_mode: "exact", match: {}, result: null }])}
      >
        Add case
      </Button>
    </div>
  );
}
