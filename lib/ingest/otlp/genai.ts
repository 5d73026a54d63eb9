import type { Message } from "@/lib/replay";
import type { SpanAttributes } from "./attributes";
import { messagesFromEvents } from "./genai-events";
import { fromGenAiMessages, fromGenAiSystemInstructions } from "./messages";
import {
  modelReading,
  outcome,
  problemAt,
  timing,
  toolReading,
  toolStep,
  usageOf,
  type AgentReading,
  type SpanReading,
} from "./reading";

// ---------------------------------------------------------------------------
// The OpenTelemetry GenAI semantic conventions (2024–2026), by
// `gen_ai.operation.name` (or, without it, the first word of the span name):
//   - chat / text_completion / generate_content: a model call. Its messages are
//     `gen_ai.system_instructions`, `gen_ai.input.messages` and
//     `gen_ai.output.messages` (parts: text, tool_call, tool_call_response; JSON
//     text or structured), else the older per-message events (./genai-events.ts).
//     The provider is `gen_ai.provider.name`, or the older `gen_ai.system`.
//   - execute_tool: a tool call (`gen_ai.tool.name`, `gen_ai.tool.call.id`,
//     `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`).
//   - invoke_agent / create_agent / invoke_workflow: an agent run
//     (`gen_ai.agent.name`, else the span name's, else `gen_ai.agent.id`); the
//     steps under it are that agent's (see `stepsOf`).
//   - retrieval and the memory operations (search_memory, create_memory…):
//     steps of their own that say what they are (`input.operation`), with the
//     query as their arguments and the documents or records as their result.
//   - MCP (`mcp.method.name`): `tools/call` is a tool call; resources/read,
//     prompts/get and other requests are kept as steps naming the method; the
//     protocol's plumbing (initialize, ping, lists, notifications) is not a step.
//   - any other operation a span declares is kept as a step marked
//     `unrecognized`, its gen_ai.* attributes as its arguments.
// ---------------------------------------------------------------------------

const CHAT_OPERATIONS = new Set(["chat", "text_completion", "generate_content"]);
const AGENT_OPERATIONS = new Set(["invoke_agent", "create_agent", "invoke_workflow"]);
/** Operations of spans that only group others (AI SDK 7's steps): not steps. */
const GROUPING_OPERATIONS = new Set(["agent_step"]);
const MEMORY_OPERATIONS = new Set([
  "create_memory",
  "update_memory",
  "upsert_memory",
  "delete_memory",
  "search_memory",
  "create_memory_store",
  "delete_memory_store",
]);
/** Operations the conventions define that are kept as steps as they are. */
const KNOWN_OPERATIONS = new Set(["embeddings", "plan", "retrieval", ...MEMORY_OPERATIONS]);

/** MCP methods that are the protocol's own traffic, not something an agent did. */
function mcpPlumbing(method: string): boolean {
  return (
    method === "initialize" ||
    method === "ping" ||
    method === "logging/setLevel" ||
    method === "resources/subscribe" ||
    method === "resources/unsubscribe" ||
    method.startsWith("notifications/") ||
    method.endsWith("/list")
  );
}
const MCP_REQUESTS = new Set([
  "tools/call",
  "resources/read",
  "prompts/get",
  "completion/complete",
  "sampling/createMessage",
  "elicitation/create",
]);

/** The span name after its operation (`invoke_agent Triage` → `Triage`), or "". */
function nameAfter(span: { name: string }, operation: string): string {
  return span.name.startsWith(`${operation} `) ? span.name.slice(operation.length + 1).trim() : "";
}

export function readGenAi(attrs: SpanAttributes): SpanReading {
  const span = attrs.span;
  const convention = "genai" as const;
  const declared = attrs.string("gen_ai.operation.name");
  const operation = declared ?? span.name.split(" ")[0] ?? "";
  const agentName = attrs.string("gen_ai.agent.name") ?? null;
  const mcpMethod = attrs.string("mcp.method.name");
  if (mcpMethod !== undefined) return readMcp(attrs, mcpMethod, agentName);
  if (
    CHAT_OPERATIONS.has(operation) &&
    (declared !== undefined || attrs.has("gen_ai.request.model") || attrs.has("gen_ai.input.messages"))
  )
    return readModel(attrs, agentName);
  if (operation === "execute_tool") return readTool(attrs, agentName, nameAfter(span, "execute_tool"));
  if (AGENT_OPERATIONS.has(operation)) return readAgent(attrs, operation, agentName);
  if (declared === undefined || GROUPING_OPERATIONS.has(declared))
    return { role: "other", convention: declared !== undefined ? convention : null, span, agentName };
  if (declared === "retrieval") return readRetrieval(attrs, agentName);
  if (MEMORY_OPERATIONS.has(declared)) {
    const args = attrs.prefixed("gen_ai.memory");
    delete args.records;
    const records = attrs.has("gen_ai.memory.records") ? attrs.jsonOrText("gen_ai.memory.records") : null;
    return keptStep(attrs, agentName, { name: declared, operation: declared, args, output: records });
  }
  return keptStep(attrs, agentName, {
    name: nameAfter(span, declared) ? span.name : declared,
    operation: declared,
    args: genAiAttributes(attrs),
    output: attrs.has("gen_ai.output.messages") ? attrs.jsonOrText("gen_ai.output.messages") : null,
    unrecognized: !KNOWN_OPERATIONS.has(declared),
  });
}

function readModel(attrs: SpanAttributes, agentName: string | null): SpanReading {
  const model = attrs.string("gen_ai.request.model") ?? attrs.string("gen_ai.response.model");
  const messages: Message[] = [];
  if (attrs.has("gen_ai.system_instructions")) {
    const system = attrs.json("gen_ai.system_instructions");
    if (system !== undefined)
      messages.push(...fromGenAiSystemInstructions(system, problemAt(attrs, "gen_ai.system_instructions")));
  }
  if (attrs.has("gen_ai.input.messages")) {
    const input = attrs.json("gen_ai.input.messages");
    if (input !== undefined) messages.push(...fromGenAiMessages(input, problemAt(attrs, "gen_ai.input.messages")));
  }
  let output: Message | null = null;
  if (attrs.has("gen_ai.output.messages")) {
    const out = attrs.json("gen_ai.output.messages");
    const list = out === undefined ? [] : fromGenAiMessages(out, problemAt(attrs, "gen_ai.output.messages"));
    output = list.find((m) => m.role === "assistant") ?? list[0] ?? null;
  }
  // The older conventions put the messages on events; attributes, when a span has both, win.
  if (!attrs.has("gen_ai.input.messages") && !attrs.has("gen_ai.output.messages")) {
    const fromEvents = messagesFromEvents(attrs);
    if (fromEvents.found) {
      messages.push(...fromEvents.input);
      output = fromEvents.output;
    }
  }
  const toolsJson = attrs.has("gen_ai.tool.definitions") ? attrs.json("gen_ai.tool.definitions") : undefined;
  const toolsRaw = Array.isArray(toolsJson) ? toolsJson : undefined;
  if (toolsJson !== undefined && !Array.isArray(toolsJson))
    attrs.warn("gen_ai.tool.definitions", "expected an array of tool definitions");
  const provider = attrs.string("gen_ai.provider.name") ?? attrs.string("gen_ai.system");
  return modelReading(attrs.span, "genai", agentName, {
    model,
    messages,
    temperature: attrs.number("gen_ai.request.temperature"),
    toolsRaw,
    output,
    // The convention counts cache reads and cache writes inside gen_ai.usage.input_tokens.
    usage: usageOf(
      attrs.count("gen_ai.usage.input_tokens") ?? attrs.count("gen_ai.usage.prompt_tokens"),
      attrs.count("gen_ai.usage.output_tokens") ?? attrs.count("gen_ai.usage.completion_tokens"),
      attrs.count("gen_ai.usage.cache_read.input_tokens") ?? attrs.count("gen_ai.usage.cache_read_input_tokens"),
      (message) => attrs.warn("gen_ai.usage.cache_read.input_tokens", message),
      {
        count:
          attrs.count("gen_ai.usage.cache_creation.input_tokens") ??
          attrs.count("gen_ai.usage.cache_creation_input_tokens"),
        note: (message) => attrs.warn("gen_ai.usage.cache_creation.input_tokens", message),
      },
    ),
    ...(provider !== undefined ? { provider } : {}),
  });
}

function readTool(attrs: SpanAttributes, agentName: string | null, fromName: string): SpanReading {
  return toolReading(attrs, "genai", agentName, attrs.string("gen_ai.tool.name") ?? (fromName || undefined), {
    nameKey: "gen_ai.tool.name",
    what: "an execute_tool span",
    step: (name) =>
      withErrorType(
        attrs,
        toolStep(
          attrs,
          name,
          attrs.string("gen_ai.tool.call.id") ?? null,
          "gen_ai.tool.call.arguments",
          "gen_ai.tool.call.result",
        ),
      ),
  });
}

/** `error.type` on a span whose status is not ERROR (an MCP tool answering `isError`): the call failed all the same. */
function withErrorType<T extends { status: string; error: unknown }>(attrs: SpanAttributes, step: T): T {
  const type = attrs.span.attributes["error.type"];
  if (step.status !== "completed" || typeof type !== "string" || type === "") return step;
  const message = attrs.span.status.message || `the call ended with error.type ${type}`;
  return { ...step, status: "failed", error: { type, message } };
}

function readAgent(attrs: SpanAttributes, operation: string, agentName: string | null): AgentReading {
  const span = attrs.span;
  let final: AgentReading["final"] = null;
  if (attrs.has("gen_ai.output.messages")) {
    const out = attrs.json("gen_ai.output.messages");
    const list = out === undefined ? [] : fromGenAiMessages(out, problemAt(attrs, "gen_ai.output.messages"));
    const last = [...list].reverse().find((m) => m.role === "assistant");
    if (last && last.content !== null && last.content !== "") final = { output: last.content };
  }
  // `invoke_agent {name}`; AI SDK 7 names it after the model by default, which is no agent name.
  let fromName = nameAfter(span, operation);
  if (fromName === attrs.string("gen_ai.request.model")) fromName = "";
  const name =
    agentName ??
    (operation === "invoke_workflow" ? attrs.string("gen_ai.workflow.name") : undefined) ??
    (fromName || attrs.string("gen_ai.agent.id")) ??
    null;
  return { role: "agent", convention: "genai", span, agentName: name || null, final, metadata: {} };
}

function readRetrieval(attrs: SpanAttributes, agentName: string | null): SpanReading {
  const args: Record<string, unknown> = {};
  const query = attrs.string("gen_ai.retrieval.query.text");
  if (query !== undefined) args.query = query;
  const source = attrs.string("gen_ai.data_source.id");
  if (source !== undefined) args.dataSource = source;
  const topK = attrs.number("gen_ai.retrieval.top_k") ?? attrs.number("gen_ai.request.top_k");
  if (topK !== undefined) args.topK = topK;
  const documents = attrs.has("gen_ai.retrieval.documents")
    ? attrs.jsonOrText("gen_ai.retrieval.documents")
    : attrs.has("gen_ai.tool.call.result")
      ? attrs.jsonOrText("gen_ai.tool.call.result")
      : null;
  return keptStep(attrs, agentName, {
    name: attrs.string("gen_ai.tool.name") ?? "retrieval",
    operation: "retrieval",
    args: attrs.has("gen_ai.tool.call.arguments") ? attrs.jsonOrText("gen_ai.tool.call.arguments") : args,
    output: documents,
  });
}

/** A span of the MCP conventions (client or server side). */
function readMcp(attrs: SpanAttributes, method: string, agentName: string | null): SpanReading {
  const span = attrs.span;
  if (method === "tools/call") return readTool(attrs, agentName, nameAfter(span, method));
  if (mcpPlumbing(method)) return { role: "other", convention: "genai", span, agentName };
  const args: Record<string, unknown> = {};
  const uri = attrs.string("mcp.resource.uri");
  if (uri !== undefined) args.uri = uri;
  const prompt = attrs.string("gen_ai.prompt.name");
  if (prompt !== undefined) args.prompt = prompt;
  return keptStep(attrs, agentName, {
    name: span.name || method,
    operation: method,
    args,
    output: attrs.has("gen_ai.tool.call.result") ? attrs.jsonOrText("gen_ai.tool.call.result") : null,
    unrecognized: !MCP_REQUESTS.has(method),
  });
}

/** Every gen_ai.* attribute of a span but its operation name (what an operation we do not know said). */
function genAiAttributes(attrs: SpanAttributes): Record<string, unknown> {
  const out = attrs.prefixed("gen_ai");
  delete out["operation.name"];
  return out;
}

/** A step that is not a plain tool call, kept as one that says what it is. */
function keptStep(
  attrs: SpanAttributes,
  agentName: string | null,
  what: { name: string; operation: string; args: unknown; output: unknown; unrecognized?: boolean },
): SpanReading {
  const span = attrs.span;
  const { status, error } = outcome(span);
  const callId = attrs.string("gen_ai.tool.call.id");
  return {
    role: "tool",
    convention: "genai",
    span,
    agentName,
    step: withErrorType(attrs, {
      ...timing(span),
      kind: "tool_call",
      name: what.name,
      callId: callId === undefined || callId === "" ? null : callId,
      args: what.args ?? {},
      output: what.output ?? null,
      error,
      status,
      operation: what.operation,
      ...(what.unrecognized ? { unrecognized: true as const } : {}),
    }),
  };
}
