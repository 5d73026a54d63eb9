import type { Message, ModelCallInput, Usage } from "@/lib/replay";

/**
 * A model provider's wire format (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages):
 * how a request an unmodified client sends is read into the engine's shape, and how an answer
 * (recorded or live) is written back in the client's own format. Pure: no I/O.
 */
export interface WireRequest {
  /** The conversation and parameters, normalized exactly as the importers store a recorded model call's input. */
  input: ModelCallInput;
  stream: boolean;
  model: string;
}

/** An assistant turn to send back: its message (text and tool calls), usage, and the names the client expects. */
export interface WireAnswer {
  message: Message;
  usage: Usage | null;
  model: string;
  /** The response id the client sees (e.g. `chatcmpl-…`, `resp_…`, `msg_…`). */
  id: string;
  /** Seconds since the epoch. */
  created: number;
}

export interface WireFormat {
  /** Reads a request body; throws AppError("invalid_input") naming the path of what was wrong. */
  parseRequest(body: unknown): WireRequest;
  /** The non-streaming JSON body. */
  renderJson(answer: WireAnswer): unknown;
  /** The streaming body as complete SSE events (`event: …\ndata: …\n\n`), terminators included. */
  renderStream(answer: WireAnswer): string[];
  /** An error body in the provider's own shape (what its client raises as an API error). */
  renderError(status: number, code: string, message: string): unknown;
}
