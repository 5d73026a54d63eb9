/**
 * The price table and the session costs worked out from it (rules: lib/prices/prices.ts, here as SQL).
 *
 * A session's cost is the source's when any of its steps has one (costSource `source`: its costUsd is the
 * sum its writer stored); else the price table's estimate over its model calls' tokens (`price_table`:
 * costMicros exact, costUsd = costMicros / 10^6); else nothing (`none`, costUsd 0). Null: not worked out
 * yet. Every session writer that saves a session whole works it out in its own transaction
 * (refreshSessionCosts); the trace increments, which write a window of a long session at a time, only
 * mark it (costSource null) and the sessions marked are worked out after the export (backfillCosts), so
 * an export still reads its window, not the session. A new price marks the sessions it can change.
 */
import { DEFAULT_PRICES, DEFAULT_PRICES_VALID_FROM } from "@/lib/prices/defaults";
import {
  parseUsdToMicros,
  type CallTokens,
  type CostUsage,
  type PriceInput,
  type PriceMatch,
  type PriceRule,
} from "@/lib/prices/prices";
import type { Db, DbClient } from "./client";
import { prismaSql, sqlTransaction, type SqlTx } from "./sql";

/** A stored version of a price: the rule, and who added it when. */
export type PriceRow = PriceRule & {
  id: string;
  origin: string;
  createdByName: string | null;
  createdAt: Date;
};

/** Every version of every price: by model, then match, newest version first. */
export async function listPriceRows(client: DbClient): Promise<PriceRow[]> {
  const rows = await client.modelPrice.findMany({
    orderBy: [{ model: "asc" }, { match: "asc" }, { validFrom: "desc" }],
  });
  return rows.map((r) => ({ ...r, match: r.match as PriceMatch }));
}

/** insertPrice in a transaction of its own. */
export function addPriceVersion(
  prisma: Db,
  p: PriceInput,
  by: { id: string | null; name: string | null },
): Promise<PriceRow | null> {
  return prisma.$transaction((tx) => insertPrice(tx, p, by));
}

/** A session's cost as stored: the figure, where it came from, the estimate in micro-dollars. */
export function storedSessionCost(client: DbClient, sessionId: string) {
  return client.session.findUnique({
    where: { id: sessionId },
    select: { costUsd: true, costSource: true, costMicros: true },
  });
}

/**
 * Adds a version; null when the model, match and validFrom already have one (versions are never changed).
 * Marks the sessions it can change: those without a source cost, with tokens, started on or after it.
 */
export async function insertPrice(
  client: DbClient,
  p: PriceInput,
  by: { id: string | null; name: string | null; origin?: "admin" | "default" },
): Promise<PriceRow | null> {
  const sql = prismaSql(client);
  const [row] = await sql.query<[{ id: string } | undefined]>`
    INSERT INTO "ModelPrice" (id, model, match, "validFrom", "inputMicros", "outputMicros", "cachedInputMicros",
      "cacheWriteInputMicros", origin, "createdById", "createdByName")
    VALUES ('c' || substr(md5(random()::text || clock_timestamp()::text), 1, 24), ${p.model}::text, ${p.match}::text, ${p.validFrom}::timestamptz, ${p.inputMicros}::int,
      ${p.outputMicros}::int, ${p.cachedInputMicros}::int, ${p.cacheWriteInputMicros}::int, ${by.origin ?? "admin"}::text, ${by.id}::text, ${by.name}::text)
    ON CONFLICT (model, match, "validFrom") DO NOTHING
    RETURNING id`;
  if (!row) return null;
  await markCostsStale(sql, p.validFrom);
  const stored = await client.modelPrice.findUniqueOrThrow({ where: { id: row.id } });
  return { ...stored, match: stored.match as PriceMatch };
}

/** The sessions a price valid from `from` can change: their cost is worked out again (backfillCosts). */
async function markCostsStale(sql: SqlTx, from: Date): Promise<void> {
  await sql.query`
    UPDATE "Session" SET "costSource" = NULL
    WHERE "costSource" IN ('price_table', 'none') AND ("inputTokens" > 0 OR "outputTokens" > 0)
      AND coalesce("startedAt", "createdAt") >= ${from}::timestamptz`;
}

const micros = (usd: string) => {
  const parsed = parseUsdToMicros(usd);
  if (!parsed.ok) throw new Error(`lib/prices/defaults.ts: "${usd}": ${parsed.message}`);
  return parsed.micros;
};

/** The shipped prices (lib/prices/defaults.ts) missing from the table, added; how many. */
export async function seedDefaultPrices(client: DbClient): Promise<number> {
  let added = 0;
  for (const d of DEFAULT_PRICES) {
    const row = await insertPrice(
      client,
      {
        model: d.model,
        match: d.match ?? "prefix",
        validFrom: new Date(`${d.validFrom ?? DEFAULT_PRICES_VALID_FROM}T00:00:00Z`),
        inputMicros: micros(d.input),
        outputMicros: micros(d.output),
        cachedInputMicros: d.cached === undefined ? null : micros(d.cached),
        cacheWriteInputMicros: d.cacheWrite === undefined ? null : micros(d.cacheWrite),
      },
      { id: null, name: null, origin: "default" },
    );
    if (row) added++;
  }
  return added;
}

/**
 * Works out the cost of the sessions named from their stored steps: the source's when a step has one, else the
 * price table's over the model calls' tokens (writeSessionCosts, given what one read of their model calls sums).
 */
export async function refreshSessionCosts(sql: SqlTx, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  // Per session (a lateral read of its own model calls by the (sessionId, kind) index), never one join of every
  // session's events that a plan made without statistics could make a scan of the table.
  const rows = await sql.query<
    {
      id: string;
      sourced: boolean;
      model: string | null;
      input: string | null;
      cached: string | null;
      written: string | null;
      output: string | null;
    }[]
  >`
    SELECT s.id, EXISTS (SELECT 1 FROM "Event" e WHERE e."sessionId" = s.id AND e."costUsd" IS NOT NULL) AS sourced,
      u.model, u.input::text, u.cached::text, u.written::text, u.output::text
    FROM "Session" s LEFT JOIN LATERAL (
      SELECT e.name AS model, sum(coalesce(e."inputTokens", 0)) AS input,
        sum(least(coalesce(e."cachedInputTokens", 0), coalesce(e."inputTokens", 0))) AS cached,
        -- Cache writes up to what the cached reads leave of the input (cacheParts in lib/prices).
        sum(least(coalesce(e."cacheWriteInputTokens", 0),
          coalesce(e."inputTokens", 0) - least(coalesce(e."cachedInputTokens", 0), coalesce(e."inputTokens", 0)))) AS written,
        sum(coalesce(e."outputTokens", 0)) AS output
      FROM "Event" e
      WHERE e."sessionId" = s.id AND e.kind = 'model_call' AND (e."inputTokens" > 0 OR e."outputTokens" > 0)
      GROUP BY 1
    ) u ON true
    WHERE s.id = ANY(${[...ids]}::text[])`;
  const usage = new Map<string, CostUsage>();
  for (const r of rows) {
    const u = usage.get(r.id) ?? { sourced: r.sourced, calls: [] };
    if (r.model !== null)
      u.calls.push({
        model: r.model,
        inputTokens: Number(r.input),
        cachedInputTokens: Number(r.cached),
        cacheWriteInputTokens: Number(r.written),
        outputTokens: Number(r.output),
      });
    usage.set(r.id, u);
  }
  await writeSessionCosts(
    sql,
    [...usage].map(([sessionId, u]) => ({ sessionId, usage: u })),
  );
}

/**
 * refreshSessionCosts for sessions whose writer has their steps in hand (`usage`): the same answer without
 * reading their events back (a plan made without statistics could scan them all), in one statement.
 */
export async function writeSessionCosts(
  sql: SqlTx,
  items: readonly { sessionId: string; usage: CostUsage }[],
): Promise<void> {
  if (items.length === 0) return;
  const sessions = JSON.stringify(items.map((i) => ({ id: i.sessionId, sourced: i.usage.sourced })));
  const calls = JSON.stringify(
    items.flatMap((i) => (i.usage.sourced ? [] : i.usage.calls.map((c) => ({ id: i.sessionId, ...c })))),
  );
  await sql.query`
    WITH s AS (
      SELECT x.id, x.sourced, coalesce(t."startedAt", t."createdAt") AS at
      FROM jsonb_to_recordset(${sessions}::jsonb) AS x(id text, sourced boolean) JOIN "Session" t ON t.id = x.id
    ), calls AS (
      SELECT x.id, regexp_replace(lower(btrim(x.model)), '^.*/', '') AS model,
        sum(x."inputTokens")::numeric AS input, sum(least(coalesce(x."cachedInputTokens", 0), x."inputTokens"))::numeric AS cached,
        sum(least(coalesce(x."cacheWriteInputTokens", 0),
          x."inputTokens" - least(coalesce(x."cachedInputTokens", 0), x."inputTokens")))::numeric AS written,
        sum(x."outputTokens")::numeric AS output
      FROM jsonb_to_recordset(${calls}::jsonb) AS x(id text, model text, "inputTokens" bigint,
        "cachedInputTokens" bigint, "cacheWriteInputTokens" bigint, "outputTokens" bigint)
      GROUP BY 1, 2
    ), priced AS (
      SELECT c.id, sum((c.input - c.cached - c.written) * p."inputMicros"
          + c.cached * coalesce(p."cachedInputMicros", p."inputMicros")
          + c.written * coalesce(p."cacheWriteInputMicros", p."inputMicros")
          + c.output * p."outputMicros") AS picos, count(p.id) AS n
      FROM calls c JOIN s ON s.id = c.id LEFT JOIN LATERAL (
        SELECT p.id, p."inputMicros", p."cachedInputMicros", p."cacheWriteInputMicros", p."outputMicros"
        FROM "ModelPrice" p
        WHERE p."validFrom" <= s.at AND (p.model = c.model OR (p.match = 'prefix' AND
          left(c.model, length(p.model) + 1) IN (p.model || '-', p.model || ':', p.model || '@')))
        ORDER BY length(p.model) DESC, (p.match = 'exact') DESC, p."validFrom" DESC
        LIMIT 1
      ) p ON true
      GROUP BY c.id
    ), result AS (
      SELECT s.id, s.sourced, CASE WHEN pr.n > 0 THEN floor((pr.picos + 500000) / 1000000) END AS micros
      FROM s LEFT JOIN priced pr ON pr.id = s.id
    )
    UPDATE "Session" t SET
      "costSource" = CASE WHEN r.sourced THEN 'source' WHEN r.micros IS NOT NULL THEN 'price_table' ELSE 'none' END,
      "costMicros" = CASE WHEN r.sourced THEN NULL ELSE r.micros::bigint END,
      "costUsd" = CASE WHEN r.sourced THEN t."costUsd" ELSE coalesce(r.micros::float8 / 1000000, 0) END
    FROM result r WHERE t.id = r.id`;
}

/** writeSessionCosts for one session. */
export function writeSessionCost(sql: SqlTx, sessionId: string, usage: CostUsage): Promise<void> {
  return writeSessionCosts(sql, [{ sessionId, usage }]);
}

/**
 * The sessions whose cost is not worked out (older than the columns, marked by a trace increment or a new
 * price), worked out in batches, each batch's rows locked first (a concurrent writer's change is then either
 * in what the batch reads or marks the row again); how many.
 */
export async function backfillCosts(prisma: Db, batch = 200): Promise<number> {
  let done = 0;
  for (;;) {
    // On the driver's own transaction, as the trace ingest's are: one at a time on the embedded database.
    const n = await sqlTransaction(prisma, async (sql) => {
      const rows = await sql.query<{ id: string }[]>`
        SELECT id FROM "Session" WHERE "costSource" IS NULL ORDER BY id LIMIT ${batch}::int FOR UPDATE SKIP LOCKED`;
      await refreshSessionCosts(
        sql,
        rows.map((r) => r.id),
      );
      return rows.length;
    });
    done += n;
    if (n < batch) return done;
  }
}

/** One session's cost when it is not worked out (a page opened before the sweep), its row locked first. */
export async function refreshStaleCost(prisma: Db, sessionId: string): Promise<void> {
  await sqlTransaction(prisma, async (sql) => {
    const rows = await sql.query<{ id: string }[]>`
      SELECT id FROM "Session" WHERE id = ${sessionId}::text AND "costSource" IS NULL FOR UPDATE SKIP LOCKED`;
    await refreshSessionCosts(
      sql,
      rows.map((r) => r.id),
    );
  });
}

/** What a session's estimate was made of: per model with tokens, the price it took (null: none). */
export async function sessionCostBasis(
  client: DbClient,
  sessionId: string,
): Promise<({ model: string } & Required<CallTokens> & { price: PriceRow | null })[]> {
  const rows = await prismaSql(client).query<({ model: string } & Required<CallTokens> & { priceId: string | null })[]>`
    WITH s AS (SELECT id, coalesce("startedAt", "createdAt") AS at FROM "Session" WHERE id = ${sessionId}::text),
    calls AS (
      SELECT s.at, regexp_replace(lower(btrim(e.name)), '^.*/', '') AS model,
        sum(coalesce(e."inputTokens", 0))::bigint AS input,
        sum(least(coalesce(e."cachedInputTokens", 0), coalesce(e."inputTokens", 0)))::bigint AS cached,
        sum(least(coalesce(e."cacheWriteInputTokens", 0),
          coalesce(e."inputTokens", 0) - least(coalesce(e."cachedInputTokens", 0), coalesce(e."inputTokens", 0))))::bigint AS written,
        sum(coalesce(e."outputTokens", 0))::bigint AS output
      FROM s JOIN "Event" e ON e."sessionId" = s.id AND e.kind = 'model_call'
      WHERE e."inputTokens" > 0 OR e."outputTokens" > 0
      GROUP BY s.at, 2
    )
    SELECT c.model, c.input::float8 AS "inputTokens", c.cached::float8 AS "cachedInputTokens",
      c.written::float8 AS "cacheWriteInputTokens", c.output::float8 AS "outputTokens", p.id AS "priceId"
    FROM calls c LEFT JOIN LATERAL (
      SELECT p.id FROM "ModelPrice" p
      WHERE p."validFrom" <= c.at AND (p.model = c.model OR (p.match = 'prefix' AND
        left(c.model, length(p.model) + 1) IN (p.model || '-', p.model || ':', p.model || '@')))
      ORDER BY length(p.model) DESC, (p.match = 'exact') DESC, p."validFrom" DESC
      LIMIT 1
    ) p ON true
    ORDER BY c.model`;
  const ids = rows.flatMap((r) => (r.priceId ? [r.priceId] : []));
  const prices = new Map(
    (await client.modelPrice.findMany({ where: { id: { in: ids } } })).map((p) => [
      p.id,
      { ...p, match: p.match as PriceMatch },
    ]),
  );
  return rows.map((r) => ({
    model: r.model,
    inputTokens: Number(r.inputTokens),
    cachedInputTokens: Number(r.cachedInputTokens),
    cacheWriteInputTokens: Number(r.cacheWriteInputTokens),
    outputTokens: Number(r.outputTokens),
    price: r.priceId ? (prices.get(r.priceId) ?? null) : null,
  }));
}
