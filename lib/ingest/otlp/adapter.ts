import { Adapter } from "@/lib/replay";
import type { OtlpSpan } from "./decode";

/**
 * The framework (adapter) that recorded a trace, from what its spans name.
 * Several policy caveats depend on the adapter, so a trace from a known SDK
 * must not land on `generic`. In order, the first that holds wins:
 *
 * 1. an explicit `branchpoint.adapter` attribute (resource or span) naming an adapter;
 * 2. the instrumentation scope or attribute names a framework writes:
 *    - `vercel-ai-sdk`: `ai.*` attributes (AI SDK ≤ 6 and 7's legacy spans), the SDK's own
 *      tracer `ai`, or AI SDK 7's GenAI `agent_step` spans;
 *    - `openai-agents`: a scope naming `openai_agents` / `openai-agents` (OpenInference's and
 *      Logfire's instrumentations of the OpenAI Agents SDK);
 *    - `pydantic-ai`: the `pydantic-ai` scope, or `pydantic_ai.*` attributes;
 *    - `langgraph`: `langgraph.*` attributes, LangChain metadata naming a `langgraph_node`,
 *      or a scope naming langgraph;
 *    - `mastra`: a scope or `mastra.*` attributes;
 * 3. otherwise `generic`.
 */
export function detectAdapter(spans: readonly Pick<OtlpSpan, "attributes" | "resource" | "scope">[]): Adapter {
  return adapterOf(spans.map(adapterHints));
}

/** What one span says about the adapter: an explicit name, and the frameworks its scope and attributes point at. */
export type AdapterHints = { explicit: Adapter | null; found: Adapter[] };

export function adapterHints(span: Pick<OtlpSpan, "attributes" | "resource" | "scope">): AdapterHints {
  const explicit = Adapter.safeParse(span.resource["branchpoint.adapter"] ?? span.attributes["branchpoint.adapter"]);
  const found = new Set<Adapter>();
  const scope = span.scope.name.toLowerCase();
  const keys = Object.keys(span.attributes);
  if (
    scope === "ai" ||
    keys.some((k) => k.startsWith("ai.")) ||
    span.attributes["gen_ai.operation.name"] === "agent_step"
  )
    found.add("vercel-ai-sdk");
  if (/openai[_-]agents/.test(scope)) found.add("openai-agents");
  if (scope === "pydantic-ai" || scope.includes("pydantic_ai") || keys.some((k) => k.startsWith("pydantic_ai.")))
    found.add("pydantic-ai");
  if (
    scope.includes("langgraph") ||
    keys.some((k) => k.startsWith("langgraph.")) ||
    (typeof span.attributes.metadata === "string" && span.attributes.metadata.includes('"langgraph_node"'))
  )
    found.add("langgraph");
  if (scope.includes("mastra") || keys.some((k) => k.startsWith("mastra."))) found.add("mastra");
  return { explicit: explicit.success ? explicit.data : null, found: [...found] };
}

/** The adapter of a group from its spans' hints, in the spans' order (see `detectAdapter`). */
export function adapterOf(hints: readonly AdapterHints[]): Adapter {
  for (const h of hints) if (h.explicit !== null) return h.explicit;
  const found = new Set(hints.flatMap((h) => h.found));
  // One framework drives the agent; when instrumentations overlap, the agent framework wins over the model SDK.
  for (const adapter of ["openai-agents", "pydantic-ai", "langgraph", "mastra", "vercel-ai-sdk"] as const)
    if (found.has(adapter)) return adapter;
  return "generic";
}
