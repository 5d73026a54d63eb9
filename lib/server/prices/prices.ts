/**
 * The price table (lib/prices): everyone reads it, admins add versions. A new version is never a change to
 * an old one; it re-prices the sessions it can change (those without a source cost, started on or after it).
 */
import type { Db } from "@/lib/db";
import {
  addPriceVersion,
  backfillCosts,
  listPriceRows,
  refreshStaleCost,
  sessionCostBasis,
  storedSessionCost,
  type PriceRow,
} from "@/lib/db/prices";
import { AppError, notFound, parseInput } from "@/lib/errors";
import { formatMicrosUsd, parseUsdToMicros, PriceInput, type CostSource } from "@/lib/prices/prices";
import { z } from "zod";
import { authorize } from "../authz";
import type { Principal } from "../principal";

/** A price as the API and the settings page show it: micro-dollars, and the same as dollar text. */
export function priceView(p: PriceRow) {
  return {
    id: p.id,
    model: p.model,
    match: p.match,
    validFrom: p.validFrom.toISOString(),
    inputMicros: p.inputMicros,
    outputMicros: p.outputMicros,
    cachedInputMicros: p.cachedInputMicros,
    inputUsdPerMTok: formatMicrosUsd(p.inputMicros),
    outputUsdPerMTok: formatMicrosUsd(p.outputMicros),
    cachedInputUsdPerMTok: p.cachedInputMicros === null ? null : formatMicrosUsd(p.cachedInputMicros),
    cacheWriteInputMicros: p.cacheWriteInputMicros,
    cacheWriteInputUsdPerMTok: p.cacheWriteInputMicros === null ? null : formatMicrosUsd(p.cacheWriteInputMicros),
    origin: p.origin,
    createdBy: p.createdByName,
    createdAt: p.createdAt.toISOString(),
  };
}
export type PriceView = ReturnType<typeof priceView>;

export async function listPrices(principal: Principal, prisma: Db): Promise<PriceView[]> {
  authorize(principal, "prices.read");
  return (await listPriceRows(prisma)).map(priceView);
}

/**
 * Adds a version of a price (admins). Refused with a 400 naming the field: a malformed body, and a version
 * the model and match already have on that date. Then the sessions it can change are priced again;
 * `sessionsRepriced` says how many were worked out.
 */
export async function addPrice(
  principal: Principal,
  raw: unknown,
  prisma: Db,
): Promise<{ price: PriceView; sessionsRepriced: number }> {
  authorize(principal, "prices.manage");
  const input = parseInput(PriceInput, raw, "The price is not valid.");
  const row = await addPriceVersion(prisma, input, { id: principal.userId, name: principal.name });
  if (!row) {
    const day = input.validFrom.toISOString().slice(0, 10);
    throw new AppError(
      "invalid_input",
      `${input.model} (${input.match}) already has a price valid from ${day}; a version is never changed: add one with a later date.`,
      [{ path: "validFrom", message: `a version valid from ${day} exists` }],
    );
  }
  return { price: priceView(row), sessionsRepriced: await backfillCosts(prisma) };
}

/**
 * Where a session's cost comes from, for the session page: the source's own figure, or the price table's
 * estimate with the price each model took (and the models with tokens but no price).
 */
export async function sessionCost(principal: Principal, sessionId: string, prisma: Db) {
  authorize(principal, "sessions.read");
  let s = await storedSessionCost(prisma, sessionId);
  if (!s) throw notFound("session", sessionId);
  if (s.costSource === null) {
    // Marked by a trace export the sweep has not reached yet: this one now.
    await refreshStaleCost(prisma, sessionId);
    s = (await storedSessionCost(prisma, sessionId)) ?? s;
  }
  const source = (s.costSource ?? null) as CostSource | null;
  if (source !== "price_table" && source !== "none") return { source, costUsd: s.costUsd, models: [] };
  const basis = await sessionCostBasis(prisma, sessionId);
  return {
    source,
    costUsd: s.costUsd,
    costMicros: s.costMicros === null ? null : Number(s.costMicros),
    models: basis.map((b) => ({ ...b, price: b.price ? priceView(b.price) : null })),
  };
}
export type SessionCost = Awaited<ReturnType<typeof sessionCost>>;

/** The settings form's fields: dollars per million tokens as typed (read exactly, lib/prices). */
export const PriceForm = z
  .object({
    model: z.string().max(200),
    match: z.string().max(20),
    validFrom: z.string().max(40),
    input: z.string().max(40),
    output: z.string().max(40),
    cached: z.string().max(40),
    cacheWrite: z.string().max(40).default(""),
  })
  .strict();
export type PriceForm = z.infer<typeof PriceForm>;

const FORM_FIELD: Record<string, keyof PriceForm> = {
  inputMicros: "input",
  outputMicros: "output",
  cachedInputMicros: "cached",
  cacheWriteInputMicros: "cacheWrite",
};

/** addPrice from the settings form: each dollar amount read exactly; errors named by the form's fields. */
export async function addPriceFromForm(principal: Principal, form: PriceForm, prisma: Db) {
  authorize(principal, "prices.manage");
  const issues: { path: string; message: string }[] = [];
  const amount = (field: "input" | "output" | "cached" | "cacheWrite") => {
    if ((field === "cached" || field === "cacheWrite") && form[field].trim() === "") return null;
    const parsed = parseUsdToMicros(form[field]);
    if (parsed.ok) return parsed.micros;
    issues.push({ path: field, message: parsed.message });
    return 0;
  };
  const body = {
    model: form.model,
    match: form.match,
    validFrom: form.validFrom,
    inputMicros: amount("input"),
    outputMicros: amount("output"),
    cachedInputMicros: amount("cached"),
    cacheWriteInputMicros: amount("cacheWrite"),
  };
  if (issues.length > 0) throw new AppError("invalid_input", "The price is not valid.", issues);
  try {
    return await addPrice(principal, body, prisma);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError(
      error.code,
      error.message,
      error.issues.map((i) => ({ ...i, path: FORM_FIELD[i.path] ?? i.path })),
    );
  }
}
