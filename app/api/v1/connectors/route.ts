import { z } from "zod";
import { route } from "@/lib/http/route";
import { createConnector, listConnectors } from "@/lib/server/connectors/connectors";

export const dynamic = "force-dynamic";

/** GET /api/v1/connectors: `{ "connectors": [{ id, name, kind, baseUrl, publicKey, project, secretKeyEnv, secretSet, hostAllowed, createdAt }] }`. */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) =>
  Response.json({ connectors: await listConnectors(principal, {}, prisma) }),
);

/**
 * POST /api/v1/connectors (admin): `{ name, kind: "langfuse", baseUrl, publicKey, secretKeyEnv }` or
 * `{ name, kind: "langsmith" | "phoenix" | "braintrust", baseUrl, project, secretKeyEnv }` → `201 { "connector" }`. The base URL's host must be on the executor allow-list; the secret key stays in the
 * environment variable named.
 */
export const POST = route({ accept: ["api_key"], body: z.unknown() }, async ({ body, prisma, principal }) =>
  Response.json({ connector: await createConnector(principal, body, prisma) }, { status: 201 }),
);
