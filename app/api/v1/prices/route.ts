import { z } from "zod";
import { route } from "@/lib/http/route";
import { addPrice, listPrices } from "@/lib/server/prices/prices";

export const dynamic = "force-dynamic";

/** GET /api/v1/prices: `{ "prices": [...] }`, every version, by model, newest version first. */
export const GET = route({ accept: ["api_key"] }, async ({ prisma, principal }) =>
  Response.json({ prices: await listPrices(principal, prisma) }),
);

/**
 * POST /api/v1/prices (admins): a new version of a price,
 * `{ model, match?: "exact" | "prefix", validFrom: "2025-06-10", inputMicros, outputMicros, cachedInputMicros?,
 * cacheWriteInputMicros? }`
 * in integer micro-dollars per million tokens; `201 { "price", "sessionsRepriced" }`.
 */
export const POST = route(
  { accept: ["api_key"], authorize: "prices.manage", body: z.unknown() },
  async ({ body, prisma, principal }) => Response.json(await addPrice(principal, body, prisma), { status: 201 }),
);
