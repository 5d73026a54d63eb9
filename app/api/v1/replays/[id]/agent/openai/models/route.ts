import { openAiChat } from "@/lib/agent-wire/openai-chat";
import { AGENT_TOKEN, wireError } from "@/lib/http/agent-routes";
import { route } from "@/lib/http/route";
import { agentModels } from "@/lib/server/agent/agent-models";

export const dynamic = "force-dynamic";

/** OpenAI's model list for the replay's agent: the models its recording called. */
export const GET = route(
  { ...AGENT_TOKEN, answerError: wireError(openAiChat, "GET agent/openai/models") },
  async ({ params, principal, prisma }) => {
    const models = await agentModels(principal, params.id, prisma);
    return Response.json({
      object: "list",
      data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "branchpoint-replay" })),
    });
  },
);
