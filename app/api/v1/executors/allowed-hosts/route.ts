import { route } from "@/lib/http/route";
import { listHosts, putHost } from "@/lib/server/executors/executors-admin";
import { z } from "zod";

export const dynamic = "force-dynamic";

/** GET /api/v1/executors/allowed-hosts: `{ "hosts": [...] }`. */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) =>
  Response.json({ hosts: await listHosts(principal, prisma) }),
);

/** POST /api/v1/executors/allowed-hosts: creates or replaces one; `201 { "host" }`. */
export const POST = route({ accept: ["api_key"], body: z.unknown() }, async ({ body, prisma, principal }) =>
  Response.json({ host: await putHost(principal, body, prisma) }, { status: 201 }),
);
