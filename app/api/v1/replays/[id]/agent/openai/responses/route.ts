import { z } from "zod";
import { openAiResponsesWire } from "@/lib/agent-wire/openai-responses";
import { AGENT_TOKEN, wireAnswer, wireError } from "@/lib/http/agent-routes";
import { route } from "@/lib/http/route";
import { agentModelCall } from "@/lib/server/agent/agent-models";
import { refuseNul } from "@/lib/server/replays/replay-inputs";

export const dynamic = "force-dynamic";

/** OpenAI Responses (the Agents SDK's default) for the replay's agent: the recorded answer while its input matches. */
export const POST = route(
  {
    ...AGENT_TOKEN,
    body: z.unknown().superRefine(refuseNul),
    answerError: wireError(openAiResponsesWire, "POST agent/openai/responses"),
  },
  async ({ params, principal, prisma, body }) => {
    const request = openAiResponsesWire.parseRequest(body);
    const answer = await agentModelCall(principal, params.id, request, prisma, "resp_");
    return wireAnswer(
      request.stream ? openAiResponsesWire.renderStream(answer) : null,
      openAiResponsesWire.renderJson(answer),
    );
  },
);
