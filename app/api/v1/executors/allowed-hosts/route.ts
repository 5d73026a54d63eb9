import { apiRoute, readJson } from "@/lib/http/api";
import { listHosts, putHost } from "@/lib/server/executors/executors-admin";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/v1/executors/allowed-hosts: `{ "hosts": [...] }`. */
export const GET = apiRoute(async ({ prisma, principal }) =>
  Response.json({ hosts: await listHosts(principal, prisma) }),
);

/** POST /api/v1/executors/allowed-hosts: creates or replaces one; `201 { "host" }`. */
export const POST = apiRoute(async ({ request, prisma, principal }) => {
  const body = await readJson(request, z.unknown());
  return Response.json({ host: await putHost(principal, body, prisma) }, { status: 201 });
});
