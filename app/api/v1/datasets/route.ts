import { route } from "@/lib/http/route";
import { CreateDatasetInput } from "@/lib/server/datasets/dataset-inputs";
import { createDataset, listDatasets } from "@/lib/server/datasets/datasets";

export const dynamic = "force-dynamic";

/** → `{ datasets: [{ id, name, description, createdBy, createdAt, updatedAt, size }] }`, newest first. */
export const GET = route({ accept: ["api_key"], authorize: "datasets.read" }, async ({ prisma, principal }) => {
  return Response.json({ datasets: await listDatasets(principal, {}, prisma) });
});

/**
 * `{ name, description?, sessionIds? | filter? }` → `201 { dataset, added, matching?, capped?, message? }`. `filter`
 * is the session list's filters (as `GET /api/v1/sessions` names them): the sessions it matches now are frozen in,
 * newest imported first up to the cap. An id that names no session refuses the whole request.
 */
export const POST = route(
  { accept: ["api_key"], authorize: "datasets.write", body: CreateDatasetInput },
  async ({ prisma, principal, body }) => {
    return Response.json(await createDataset(principal, body, prisma), { status: 201 });
  },
);
