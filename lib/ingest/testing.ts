// Test and benchmark helpers for the ingest formats: the recorded fixtures, repeated.
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseOpenAiAgentsExport, type AgentsItem } from "./openai-agents-parse";

/** The recorded Agents SDK export (Chat Completions model): one trace of one run, with its group id. */
export const AGENTS_FIXTURE = path.join(import.meta.dirname, "__fixtures__/openai-agents-chat.json");

/**
 * `runs` runs of the recorded Agents SDK export in one group `group`, a minute apart, each under
 * trace and span ids of its own (for tests and benchmarks).
 */
export function agentsRunsOf(group: string, runs: number): AgentsItem[] {
  const body = readFileSync(AGENTS_FIXTURE, "utf8");
  const items: unknown[] = [];
  for (let c = 0; c < runs; c++) {
    const text = body
      .replace(/"(trace|span)_([0-9a-f]+)"/g, (_m, kind: string, id: string) => `"${kind}_${group}_${c}_${id}"`)
      .replace(
        /"(20\d\d-[0-9T:.-]+Z)"/g,
        (_m, iso: string) => `"${new Date(Date.parse(iso) + c * 60_000).toISOString()}"`,
      )
      .replaceAll("group-openai-agents-chat", group);
    items.push(...(JSON.parse(text) as { data: unknown[] }).data);
  }
  const parsed = parseOpenAiAgentsExport({ data: items });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues.slice(0, 3)));
  return parsed.items;
}
