import { route } from "@/lib/http/route";
import { getInvestigation } from "@/lib/server/investigations/investigation-reads";

export const dynamic = "force-dynamic";

/** An investigation with its cost bound, the probes run so far and, once finished, its result. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({ investigation: await getInvestigation(principal, { investigationId: params.id }, prisma) });
});
