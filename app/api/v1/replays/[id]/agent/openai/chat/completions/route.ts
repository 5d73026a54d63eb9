import { z } from "zod";
import { openAiChat } from "@/lib/agent-wire/openai-chat";
import { AGENT_TOKEN, wireAnswer, wireError } from "@/lib/http/agent-routes";
import { route } from "@/lib/http/route";
import { agentModelCall } from "@/lib/server/agent/agent-models";
import { refuseNul } from "@/lib/server/replays/replay-inputs";

export const dynamic = "force-dynamic";

/** OpenAI Chat Completions for the replay's agent: the recorded answer while its input matches (JSON or SSE). */
export const POST = route(
  {
    ...AGENT_TOKEN,
    body: z.unknown().superRefine(refuseNul),
    answerError: wireError(openAiChat, "POST agent/openai/chat/completions"),
  },
  async ({ params, principal, prisma, body }) => {
    const request = openAiChat.parseRequest(body);
    const answer = await agentModelCall(principal, params.id, request, prisma);
    return wireAnswer(request.stream ? openAiChat.renderStream(answer) : null, openAiChat.renderJson(answer));
  },
);
