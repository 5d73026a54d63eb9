import { route } from "@/lib/http/route";
import { deleteWatch } from "@/lib/server/watches/watches";

export const dynamic = "force-dynamic";

/** Deletes the watch with its triggers and delivery log → `200 { deleted: { id } }`. */
export const DELETE = route<{ id: string }>(
  { accept: ["api_key"], authorize: "clusters.write" },
  async ({ prisma, principal, params }) => {
    return Response.json(await deleteWatch(principal, { watchId: params.id }, prisma));
  },
);
