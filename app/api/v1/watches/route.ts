import { z } from "zod";
import { route } from "@/lib/http/route";
import { CreateWatchInput, ListWatchesInput } from "@/lib/server/watches/watch-inputs";
import { createWatch, deleteWatch, listWatches } from "@/lib/server/watches/watches";

export const dynamic = "force-dynamic";

/** `?agentId=|agentName=` (optional) → `{ watches: [{ id, name, agentName, condition, actions, costBound, windowSeconds }] }`. */
export const GET = route({ accept: ["api_key"], query: ListWatchesInput }, async ({ prisma, principal, query }) => {
  return Response.json({ watches: await listWatches(principal, query, prisma) });
});

/**
 * `{ agentId | agentName, name, condition: { kind, … }, actions: { webhook?: { url }, investigate?: { maxSessions,
 * checkId?, trials? } }, windowSeconds? }` → `201 { watch }` (with the investigation's `costBound`).
 */
export const POST = route(
  { accept: ["api_key"], authorize: "clusters.write", body: CreateWatchInput },
  async ({ prisma, principal, body }) => {
    return Response.json({ watch: await createWatch(principal, body, prisma) }, { status: 201 });
  },
);

const DeleteQuery = z.strictObject({ id: z.string().min(1).max(64) });

/** `?id=` → `200 { deleted: { id } }` (also `DELETE /api/v1/watches/:id`). */
export const DELETE = route(
  { accept: ["api_key"], authorize: "clusters.write", query: DeleteQuery },
  async ({ prisma, principal, query }) => {
    return Response.json(await deleteWatch(principal, { watchId: query.id }, prisma));
  },
);
