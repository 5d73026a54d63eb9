import { apiRoute } from "@/lib/http/api";
import { cancelInvestigation } from "@/lib/server/investigations/investigation-reads";

export const dynamic = "force-dynamic";

/** Stops an investigation before its next probe (a queued one at once) → `{ investigation: { id, status } }`. */
export const POST = apiRoute<{ id: string }>(async ({ prisma, params, principal }) => {
  return Response.json({
    investigation: await cancelInvestigation(principal, { investigationId: params.id }, prisma),
  });
});
