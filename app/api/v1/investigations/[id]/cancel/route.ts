import { route } from "@/lib/http/route";
import { cancelInvestigation } from "@/lib/server/investigations/investigation-reads";

export const dynamic = "force-dynamic";

/** Stops an investigation before its next probe (a queued one at once) → `{ investigation: { id, status } }`. */
export const POST = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, params, principal }) => {
  return Response.json({
    investigation: await cancelInvestigation(principal, { investigationId: params.id }, prisma),
  });
});
