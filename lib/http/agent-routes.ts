/**
 * What the agent endpoints of an agent-driven replay share: they take only that replay's token, and a model
 * endpoint answers a failure in its provider's own error shape (what the provider's client raises).
 */
import type { WireFormat } from "@/lib/agent-wire/types";
import { ModelCallRefused } from "@/lib/server/agent/agent-models";
import { toAppError } from "./api";

/**
 * The options every route of one replay's agent endpoints passes to route(): that replay's token only (Bearer or
 * x-api-key), for the replay named in the path.
 */
export const AGENT_TOKEN = {
  accept: ["replay_token"] as const,
  replayId: (params: { id: string }) => params.id,
};

/** A failure in a provider's error shape, with the status its client expects. */
export function wireError(format: WireFormat, where: string) {
  return (error: unknown): Response => {
    if (error instanceof ModelCallRefused)
      return Response.json(format.renderError(400, error.wireCode, error.message), { status: 400 });
    const app = toAppError(error, where);
    return Response.json(format.renderError(app.status, app.code, app.message), { status: app.status });
  };
}

/** An answer of a model endpoint: the JSON body, or the SSE stream when the client asked to stream. */
export function wireAnswer(events: string[] | null, json: unknown): Response {
  if (events === null) return Response.json(json);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of events) controller.enqueue(encoder.encode(event));
      controller.close();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" },
  });
}
