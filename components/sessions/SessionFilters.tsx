import type { ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { StatusOptions } from "./StatusOptions";

type Values = Record<string, string | undefined>;

const FIELD =
  "rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm shadow-sm focus:border-indigo-500 focus:outline-none";
const LABEL = "flex flex-col gap-1 text-xs font-medium text-slate-600";

/** The filters past the first row: open when one of them is set, so a shared link shows what it filters by. */
const MORE = [
  "hasErrors",
  "minErrors",
  "maxErrors",
  "minCostUsd",
  "maxCostUsd",
  "minDurationMs",
  "maxDurationMs",
  "minTokens",
  "maxTokens",
  "from",
  "to",
];

function NumberField({
  name,
  label,
  values,
  step = "1",
}: {
  name: string;
  label: string;
  values: Values;
  step?: string;
}) {
  return (
    <label className={LABEL}>
      {label}
      <input name={name} type="number" min="0" step={step} defaultValue={values[name]} className={`${FIELD} w-28`} />
    </label>
  );
}

function Range({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="flex items-end gap-2">
      <legend className="sr-only">{legend}</legend>
      {children}
    </fieldset>
  );
}

/** A plain GET form: the filters and the order live in the URL, so a link reproduces the view. */
export function SessionFilters({
  agents,
  tools,
  labels,
  values,
  filtered,
}: {
  agents: string[];
  tools: string[];
  /** The labels people gave sessions (annotations). */
  labels: string[];
  values: Values;
  filtered: boolean;
}) {
  const moreOpen = MORE.some((k) => values[k] !== undefined);
  return (
    <form method="get" action="/sessions" role="search" className="mb-4 space-y-3">
      {values.sort ? <input type="hidden" name="sort" value={values.sort} /> : null}
      <div className="flex flex-wrap items-end gap-3">
        <label className={LABEL}>
          Search
          <input
            name="q"
            type="search"
            defaultValue={values.q}
            placeholder="title, task, answer…"
            className={`${FIELD} w-full sm:w-64`}
          />
        </label>
        <label className={LABEL}>
          Agent
          <select name="agent" defaultValue={values.agent ?? ""} className={FIELD}>
            <option value="">All agents</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label className={LABEL}>
          Status
          <select name="status" defaultValue={values.status ?? ""} className={FIELD}>
            <option value="">Any status</option>
            <StatusOptions />
          </select>
        </label>
        <label className={LABEL}>
          Tool used
          <select name="tool" defaultValue={values.tool ?? ""} className={FIELD}>
            <option value="">Any tool</option>
            {tools.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        {labels.length > 0 || values.label ? (
          <label className={LABEL}>
            Label
            <select name="label" defaultValue={values.label ?? ""} className={FIELD}>
              <option value="">Any label</option>
              {[...new Set([...labels, ...(values.label ? [values.label] : [])])].map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <Button variant="primary" type="submit">
          Apply
        </Button>
        {filtered ? (
          <a
            href={values.sort ? `/sessions?sort=${encodeURIComponent(values.sort)}` : "/sessions"}
            className="py-1.5 text-sm text-slate-600 hover:text-slate-900"
          >
            Clear filters
          </a>
        ) : null}
      </div>
      <details open={moreOpen} className="rounded-md border border-slate-200 bg-white px-3 py-2">
        <summary className="cursor-pointer text-sm font-medium text-slate-700">
          More filters: errors, cost, duration, tokens, dates
        </summary>
        <div className="mt-3 flex flex-wrap items-end gap-x-5 gap-y-3">
          <label className={LABEL}>
            Errors
            <select name="hasErrors" defaultValue={values.hasErrors ?? ""} className={FIELD}>
              <option value="">With or without</option>
              <option value="true">With errors</option>
              <option value="false">Without errors</option>
            </select>
          </label>
          <Range legend="Error count">
            <NumberField name="minErrors" label="Errors at least" values={values} />
            <NumberField name="maxErrors" label="Errors at most" values={values} />
          </Range>
          <Range legend="Cost in US dollars">
            <NumberField name="minCostUsd" label="Cost at least ($)" values={values} step="any" />
            <NumberField name="maxCostUsd" label="Cost at most ($)" values={values} step="any" />
          </Range>
          <Range legend="Duration in milliseconds">
            <NumberField name="minDurationMs" label="Duration at least (ms)" values={values} />
            <NumberField name="maxDurationMs" label="Duration at most (ms)" values={values} />
          </Range>
          <Range legend="Tokens, input and output">
            <NumberField name="minTokens" label="Tokens at least" values={values} />
            <NumberField name="maxTokens" label="Tokens at most" values={values} />
          </Range>
          <Range legend="When the run started (UTC)">
            <label className={LABEL}>
              Started on or after
              <input name="from" type="date" defaultValue={values.from?.slice(0, 10)} className={FIELD} />
            </label>
            <label className={LABEL}>
              Started before
              <input name="to" type="date" defaultValue={values.to?.slice(0, 10)} className={FIELD} />
            </label>
          </Range>
        </div>
        <p className="mt-2 text-xs text-slate-500">
          Bounds include their value; “started before” does not include its day. Runs with no duration or start time are
          left out when those are filtered.
        </p>
      </details>
    </form>
  );
}
