/**
 * Pure parts of the MCP proxy: the recording's tool definitions as MCP tools, a tool call's answer as MCP
 * content, and an upstream's MCP result as the output a branch step stores.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { EventError } from "@/lib/replay";

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => v !== null && typeof v === "object" && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);

/** A JSON Schema MCP accepts as a tool's input schema (an object schema); anything else is an open object. */
function inputSchemaOf(schema: unknown): Tool["inputSchema"] {
  if (isPlain(schema) && schema.type === "object") return schema as Tool["inputSchema"];
  return { type: "object" };
}

/**
 * One declared tool in any shape a recording holds: OpenAI Chat Completions (`{ type: "function", function:
 * { name, description, parameters } }`), OpenAI Responses (`{ type: "function", name, parameters }`),
 * Anthropic (`{ name, description, input_schema }`) or MCP (`{ name, description, inputSchema }`).
 */
export function toolDefinitionOf(entry: unknown): Tool | null {
  if (!isPlain(entry)) return null;
  const fn = isPlain(entry.function) ? entry.function : entry;
  const name = text(fn.name);
  if (!name) return null;
  const description = text(fn.description);
  const schema = fn.parameters ?? fn.input_schema ?? fn.inputSchema;
  return { name, ...(description ? { description } : {}), inputSchema: inputSchemaOf(schema) };
}

/**
 * The tools of a recording: every tool its model calls declared (first declaration wins), then any tool it
 * called that none declared, from the agent's tool list (its schema when known).
 */
export function recordedTools(sources: {
  declared: readonly unknown[];
  called: readonly string[];
  known: readonly { name: string; description: string | null; schema: unknown }[];
}): Tool[] {
  const byName = new Map<string, Tool>();
  for (const entry of sources.declared) {
    const tool = toolDefinitionOf(entry);
    if (tool && !byName.has(tool.name)) byName.set(tool.name, tool);
  }
  const known = new Map(sources.known.map((k) => [k.name, k]));
  for (const name of sources.called) {
    if (byName.has(name)) continue;
    const k = known.get(name);
    byName.set(name, {
      name,
      ...(k?.description ? { description: k.description } : {}),
      inputSchema: inputSchemaOf(k?.schema),
    });
  }
  return [...byName.values()];
}

/**
 * A tool call's answer as an MCP result: an error as `isError` with its message; a string output as its text;
 * any other output as its JSON text, and an object output also as `structuredContent`.
 */
export function mcpResultOf(output: unknown, error: EventError | null): CallToolResult {
  if (error) return { content: [{ type: "text", text: error.message }], isError: true };
  const shown = typeof output === "string" ? output : (JSON.stringify(output) ?? "null");
  return {
    content: [{ type: "text", text: shown }],
    ...(isPlain(output) ? { structuredContent: output } : {}),
  };
}

/**
 * What a branch step stores of an upstream's MCP result: its structured content when it has one, else its one
 * text, else its content list; an `isError` result is the step's error, with the result's text as its message.
 */
export function stepAnswerOf(
  result: CallToolResult,
): { output: unknown } | { error: { type: string; message: string } } {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.filter((c) => c.type === "text").map((c) => (c as { text: string }).text);
  if (result.isError)
    return {
      error: { type: "McpToolError", message: texts.join("\n").trim() || "The MCP tool answered with an error." },
    };
  if (result.structuredContent !== undefined) return { output: result.structuredContent };
  if (content.length === 1 && texts.length === 1) return { output: texts[0] };
  return { output: content };
}
