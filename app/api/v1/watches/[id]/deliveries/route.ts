import { route } from "@/lib/http/route";
import { watchDeliveries } from "@/lib/server/watches/watches";

export const dynamic = "force-dynamic";

/**
 * The watch's webhook attempts, newest first (`{ deliveries: [{ attempt, status, httpStatus, error, at, triggerKey }] }`),
 * and its triggers with their investigations (`triggers: [{ key, text, facts, investigation, firedAt }]`).
 */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ prisma, principal, params }) => {
  const { deliveries, triggers } = await watchDeliveries(principal, { watchId: params.id }, prisma);
  return Response.json({ deliveries, triggers });
});
