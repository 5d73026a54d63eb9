import { z } from "zod";
import { anthropicWire } from "@/lib/agent-wire/anthropic";
import { AGENT_TOKEN, wireAnswer, wireError } from "@/lib/http/agent-routes";
import { route } from "@/lib/http/route";
import { agentModelCall } from "@/lib/server/agent/agent-models";
import { refuseNul } from "@/lib/server/replays/replay-inputs";

export const dynamic = "force-dynamic";

/** Anthropic Messages for the replay's agent (its SDK sends the token as x-api-key): the recorded answer while its input matches. */
export const POST = route(
  {
    ...AGENT_TOKEN,
    body: z.unknown().superRefine(refuseNul),
    answerError: wireError(anthropicWire, "POST agent/anthropic/v1/messages"),
  },
  async ({ params, principal, prisma, body }) => {
    const request = anthropicWire.parseRequest(body);
    const answer = await agentModelCall(principal, params.id, request, prisma, "msg_");
    return wireAnswer(request.stream ? anthropicWire.renderStream(answer) : null, anthropicWire.renderJson(answer));
  },
);
