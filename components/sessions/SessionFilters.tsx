type Values = { agent?: string; status?: string; tool?: string; q?: string };
import { Button } from "@/components/ui/Button";
import { StatusOptions } from "./StatusOptions";

/** A plain GET form: the filters live in the URL, so a link reproduces the view. */
export function SessionFilters({ agents, tools, values }: { agents: string[]; tools: string[]; values: Values }) {
  const field =
    "rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm shadow-sm focus:border-indigo-500 focus:outline-none";
  return (
    <form method="get" action="/sessions" role="search" className="mb-4 flex flex-wrap items-end gap-3">
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
        Search
        <input
          name="q"
          type="search"
          defaultValue={values.q}
          placeholder="title, task, answer…"
          className={`${field} w-64`}
        />
      </label>
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
        Agent
        <select name="agent" defaultValue={values.agent ?? ""} className={field}>
          <option value="">All agents</option>
          {agents.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
        Status
        <select name="status" defaultValue={values.status ?? ""} className={field}>
          <option value="">Any status</option>
          <StatusOptions />
        </select>
      </label>
      <label className="flex flex-col gap-1 text-xs font-medium text-slate-600">
        Tool used
        <select name="tool" defaultValue={values.tool ?? ""} className={field}>
          <option value="">Any tool</option>
          {tools.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <Button variant="primary" type="submit">
        Apply
      </Button>
      {values.agent || values.status || values.tool || values.q ? (
        <a href="/sessions" className="py-1.5 text-sm text-slate-600 hover:text-slate-900">
          Clear
        </a>
      ) : null}
    </form>
  );
}
