import { route } from "@/lib/http/route";
import { MembersBody } from "@/lib/server/datasets/dataset-inputs";
import { addDatasetMembers, removeDatasetMembers } from "@/lib/server/datasets/datasets";

export const dynamic = "force-dynamic";

/**
 * `{ sessionIds }` (at most 1000) → `{ added, alreadyIn, size }`. Members already in keep who added them and when;
 * an id that names no session refuses the whole request.
 */
export const POST = route<{ id: string }, undefined, typeof MembersBody>(
  { accept: ["api_key"], authorize: "datasets.write", body: MembersBody },
  async ({ prisma, principal, params, body }) => {
    return Response.json(await addDatasetMembers(principal, { datasetId: params.id, ...body }, prisma));
  },
);

/** `{ sessionIds }` → `{ removed, notMembers, size }`; an id that names no session refuses the whole request. */
export const DELETE = route<{ id: string }, undefined, typeof MembersBody>(
  { accept: ["api_key"], authorize: "datasets.write", body: MembersBody },
  async ({ prisma, principal, params, body }) => {
    return Response.json(await removeDatasetMembers(principal, { datasetId: params.id, ...body }, prisma));
  },
);
