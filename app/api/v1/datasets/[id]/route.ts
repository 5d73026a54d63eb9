import { route } from "@/lib/http/route";
import { PageQuery, UpdateBody } from "@/lib/server/datasets/dataset-inputs";
import { deleteDataset, getDataset, updateDataset } from "@/lib/server/datasets/datasets";

export const dynamic = "force-dynamic";

/**
 * `?offset=&limit=` (default 0 and 50, at most 500) → `{ dataset, members: { items: [{ sessionId, label, agentName,
 * agentVersion, status, outcome, startedAt, steps, addedBy, addedAt }], total, offset, limit }, experiments }`.
 */
export const GET = route<{ id: string }, typeof PageQuery>(
  { accept: ["api_key"], authorize: "datasets.read", query: PageQuery },
  async ({ prisma, principal, params, query }) => {
    return Response.json(await getDataset(principal, { datasetId: params.id, ...query }, prisma));
  },
);

/** `{ name?, description? }` (an empty description clears it) → `{ dataset }`. */
export const PATCH = route<{ id: string }, undefined, typeof UpdateBody>(
  { accept: ["api_key"], authorize: "datasets.write", body: UpdateBody },
  async ({ prisma, principal, params, body }) => {
    return Response.json({ dataset: await updateDataset(principal, { datasetId: params.id, ...body }, prisma) });
  },
);

/** → `{ deleted: { id } }`. Experiments run over it keep their members and name it as deleted. */
export const DELETE = route<{ id: string }>(
  { accept: ["api_key"], authorize: "datasets.write" },
  async ({ prisma, principal, params }) => {
    return Response.json(await deleteDataset(principal, { datasetId: params.id }, prisma));
  },
);
