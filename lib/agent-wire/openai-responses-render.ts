import type { WireAnswer } from "./types";
import { answerText, argumentsText, jsonDeltas, sse, textDeltas } from "./wire-read";

// ---------------------------------------------------------------------------
// An assistant turn written back as the OpenAI Responses API writes it: the
// response object (output items `message` with `output_text` and
// `function_call`), and its streaming events in the order the `openai`
// client's ResponseStream and the Agents SDK accept.
// ---------------------------------------------------------------------------

type MessageItem = {
  id: string;
  type: "message";
  status: "in_progress" | "completed";
  role: "assistant";
  content: { type: "output_text"; text: string; annotations: never[]; logprobs: never[] }[];
};

type FunctionCallItem = {
  id: string;
  type: "function_call";
  status: "in_progress" | "completed";
  call_id: string;
  name: string;
  arguments: string;
};

type OutputItem = MessageItem | FunctionCallItem;

export type ResponsesObject = {
  id: string;
  object: "response";
  created_at: number;
  status: "in_progress" | "completed";
  model: string;
  output: OutputItem[];
  usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  } | null;
  error: null;
  incomplete_details: null;
  instructions: null;
  metadata: Record<string, never>;
  parallel_tool_calls: boolean;
  temperature: null;
  tool_choice: "auto";
  tools: never[];
  top_p: null;
};

/** The suffix shared by the ids of a response's items (`resp_abc` → `abc`). */
const suffixOf = (id: string) => id.replace(/^resp_/, "");

/** The completed output items of an answer: its text as one message, then one function_call per tool call. */
function outputItems(answer: WireAnswer): OutputItem[] {
  const suffix = suffixOf(answer.id);
  const calls = answer.message.toolCalls ?? [];
  const text = answerText(answer.message);
  const items: OutputItem[] = [];
  if ((text !== null && text !== "") || calls.length === 0)
    items.push({
      id: `msg_${suffix}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: text ?? "", annotations: [], logprobs: [] }],
    });
  calls.forEach((call, i) =>
    items.push({
      id: `fc_${suffix}_${i}`,
      type: "function_call",
      status: "completed",
      // A recording without a call id still needs one the client can answer.
      call_id: call.id !== "" ? call.id : `call_${suffix}_${i}`,
      name: call.name,
      arguments: argumentsText(call),
    }),
  );
  return items;
}

function responseObject(answer: WireAnswer, status: "in_progress" | "completed", output: OutputItem[]) {
  const u = answer.usage;
  const usage =
    status === "completed" && u
      ? {
          input_tokens: u.inputTokens ?? 0,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: u.outputTokens ?? 0,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: (u.inputTokens ?? 0) + (u.outputTokens ?? 0),
        }
      : null;
  const response: ResponsesObject = {
    id: answer.id,
    object: "response",
    created_at: answer.created,
    status,
    model: answer.model,
    output,
    usage,
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
  };
  return response;
}

/** The non-streaming body of `POST /responses`. */
export function renderResponsesJson(answer: WireAnswer): ResponsesObject {
  return responseObject(answer, "completed", outputItems(answer));
}

/** The streaming body of `POST /responses` as complete SSE events (the Responses API sends no `[DONE]`). */
export function renderResponsesStream(answer: WireAnswer): string[] {
  const events: string[] = [];
  let sequence = 0;
  const emit = (type: string, fields: Record<string, unknown>) =>
    events.push(sse(type, { type, sequence_number: sequence++, ...fields }));
  emit("response.created", { response: responseObject(answer, "in_progress", []) });
  emit("response.in_progress", { response: responseObject(answer, "in_progress", []) });
  const items = outputItems(answer);
  items.forEach((item, output_index) => {
    if (item.type === "message") {
      const text = item.content[0]!.text;
      const part = { type: "output_text", annotations: [], logprobs: [] };
      const at = { item_id: item.id, output_index, content_index: 0 };
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      emit("response.content_part.added", { ...at, part: { ...part, text: "" } });
      for (const delta of textDeltas(text)) emit("response.output_text.delta", { ...at, delta, logprobs: [] });
      emit("response.output_text.done", { ...at, text, logprobs: [] });
      emit("response.content_part.done", { ...at, part: { ...part, text } });
    } else {
      const at = { item_id: item.id, output_index };
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const delta of jsonDeltas(item.arguments)) emit("response.function_call_arguments.delta", { ...at, delta });
      emit("response.function_call_arguments.done", { ...at, name: item.name, arguments: item.arguments });
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit("response.completed", { response: responseObject(answer, "completed", items) });
  return events;
}

/** An error body as OpenAI writes it, `{ error: { message, type, param, code } }` (the `openai` client raises it). */
export function renderOpenAiError(status: number, code: string, message: string) {
  return {
    error: {
      message,
      type: status >= 500 ? "server_error" : status === 401 ? "authentication_error" : "invalid_request_error",
      param: null,
      code,
    },
  };
}

/** `GET /models` in OpenAI's shape: the models a client may name. */
export function renderModelsList(models: readonly string[], created: number) {
  return {
    object: "list" as const,
    data: models.map((id) => ({ id, object: "model" as const, created, owned_by: "branchpoint" })),
  };
}
