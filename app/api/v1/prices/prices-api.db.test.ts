/**
 * The price table through the API, on both engines: imports priced from it in integer micro-dollars, a
 * source's own cost kept, a newer version re-pricing only the sessions started on or after it, and the
 * refusals (roles, bad input) exact and writing nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, type Database } from "@/lib/db";
import { backfillCosts, seedDefaultPrices } from "@/lib/db/prices";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { importAndSave } from "@/lib/server/ingest/imports";
import { sessionCost } from "@/lib/server/prices/prices";
import { localAdmin } from "@/lib/server/principal";
import { REFUND_DOC } from "@/lib/server/testing";
import { DEFAULT_PRICES } from "@/lib/prices/defaults";
import { GET, POST } from "./route";

const global = globalThis as unknown as { __branchpointDb?: Promise<Database> };

// The refund session's four model calls (gpt-4.1-2025-04-14): 612+1018+1105+1161 = 3896 input tokens,
// 58+61+33+56 = 208 output tokens; its source gave each call a cost (0.001688 + 0.002524 + 0.002474 + 0.00277).
const INPUT = 3896;
const OUTPUT = 208;

/** The refund session under another id, started at `startedAt`, its calls' costs removed (or kept), on `model`. */
function refund(externalId: string, startedAt: string, opts: { keepCosts?: boolean; model?: string } = {}): string {
  const doc = JSON.parse(REFUND_DOC) as {
    externalId: string;
    startedAt: string;
    endedAt: string;
    events: { kind: string; name: string; usage: { costUsd?: number } | null }[];
  };
  doc.externalId = externalId;
  doc.startedAt = startedAt;
  doc.endedAt = new Date(Date.parse(startedAt) + 25_000).toISOString();
  for (const e of doc.events) {
    if (e.kind === "model_call" && opts.model) e.name = opts.model;
    if (e.usage && !opts.keepCosts) delete e.usage.costUsd;
  }
  return JSON.stringify(doc);
}

describe.each(TEST_ENGINES)("the price table on %s", (engine) => {
  let db: TestDatabase;
  let adminKey: string;
  let analystKey: string;
  let readOnlyKey: string;

  const call = async (handler: typeof GET, init: RequestInit & { key?: string } = {}) => {
    const response = await handler(
      new Request("http://127.0.0.1/api/v1/prices", {
        ...init,
        headers: { authorization: `Bearer ${init.key ?? adminKey}`, "content-type": "application/json" },
      }),
      { params: Promise.resolve({}) },
    );
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const post = (body: unknown, key?: string) =>
    call(POST, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), key });

  const importOne = async (doc: string) => {
    const result = await importAndSave(db.prisma, doc, { format: "native" });
    if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
    return result.sessions[0]!.id;
  };
  const costOf = async (id: string) => {
    const s = await db.prisma.session.findUniqueOrThrow({
      where: { id },
      select: { costSource: true, costMicros: true, costUsd: true },
    });
    return { source: s.costSource, micros: s.costMicros, usd: s.costUsd };
  };
  const written = async () => ({
    prices: await db.prisma.modelPrice.count(),
    stale: await db.prisma.session.count({ where: { costSource: null } }),
  });

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    global.__branchpointDb = Promise.resolve(db);
    adminKey = (await createApiKey(db.prisma, "admin script")).key;
    const root = await db.prisma.user.create({
      data: { id: "root", name: "Root", email: "root@x.test", role: "admin" },
    });
    // An admin's key ticked read-only reads, and is refused what needs the admin role.
    readOnlyKey = (await createApiKey(db.prisma, "root's reader", { userId: root.id, readOnly: true })).key;
    const ana = await db.prisma.user.create({
      data: { id: "ana", name: "Ana", email: "ana@x.test", role: "analyst" },
    });
    analystKey = (await createApiKey(db.prisma, "ana's script", { userId: ana.id })).key;
  });
  afterAll(async () => {
    global.__branchpointDb = undefined;
    await db?.drop();
  });

  it("prices an import from the table in integer micro-dollars, rounded once per session", async () => {
    // No price yet: the import has tokens and no cost.
    const before = await importOne(refund("before-any-price", "2025-03-11T14:02:07.412Z"));
    expect(await costOf(before)).toEqual({ source: "none", micros: null, usd: 0 });

    // gpt-4.1 at $2.00 / $8.00 per million tokens, from 2023.
    const added = await post({
      model: "gpt-4.1",
      validFrom: "2023-01-01",
      inputMicros: 2_000_000,
      outputMicros: 8_000_000,
      cacheWriteInputMicros: 2_500_000,
    });
    expect(added.status).toBe(201);
    const { id: _id, createdAt: _at, ...price } = added.body.price as Record<string, unknown>;
    expect({ ...added.body, price }).toEqual({
      price: {
        model: "gpt-4.1",
        match: "prefix",
        validFrom: "2023-01-01T00:00:00.000Z",
        inputMicros: 2_000_000,
        outputMicros: 8_000_000,
        cachedInputMicros: null,
        inputUsdPerMTok: "$2.00",
        outputUsdPerMTok: "$8.00",
        cachedInputUsdPerMTok: null,
        cacheWriteInputMicros: 2_500_000,
        cacheWriteInputUsdPerMTok: "$2.50",
        origin: "admin",
        createdBy: "admin script",
      },
      // The session imported before the price, priced now.
      sessionsRepriced: 1,
    });
    // 3896 × 2000000 + 208 × 8000000 = 9,456,000,000 picodollars = 9456 micro-dollars exactly.
    const expected = {
      source: "price_table",
      micros: BigInt((INPUT * 2_000_000 + OUTPUT * 8_000_000) / 1_000_000),
      usd: 0.009456,
    };
    expect(expected.micros).toBe(9456n);
    expect(await costOf(before)).toEqual(expected);
    // A later import is priced as it is saved.
    expect(await costOf(await importOne(refund("after-the-price", "2025-03-12T00:00:00Z")))).toEqual(expected);

    // Rounding: one input token at $0.40 per million is 0.4 micro-dollars; the session's 3896 are 1558.4 → 1558,
    // its 208 output tokens at $1.60 are 332.8 → with the input, 1891.2 → 1891 (rounded once, not per call).
    expect(
      (await post({ model: "gpt-4.1-mini", validFrom: "2023-01-01", inputMicros: 400_000, outputMicros: 1_600_000 }))
        .status,
    ).toBe(201);
    const mini = await importOne(refund("mini", "2025-03-13T00:00:00Z", { model: "GPT-4.1-mini-2025-04-14" }));
    expect(await costOf(mini)).toEqual({ source: "price_table", micros: 1891n, usd: 0.001891 });
    // The session page's explanation: the model, the price it took, the tokens.
    const explained = await sessionCost(localAdmin("a"), mini, db.prisma);
    expect(
      explained.models.map((m) => [m.model, m.inputTokens, m.outputTokens, m.price?.model, m.price?.validFrom]),
    ).toEqual([["gpt-4.1-mini-2025-04-14", INPUT, OUTPUT, "gpt-4.1-mini", "2023-01-01T00:00:00.000Z"]]);
  });

  it("keeps the source's own cost, marked as the source's", async () => {
    const id = await importOne(refund("with-costs", "2025-03-14T00:00:00Z", { keepCosts: true }));
    const cost = await costOf(id);
    expect(cost).toEqual({ source: "source", micros: null, usd: 0.001688 + 0.002524 + 0.002474 + 0.00277 });
    // A new price changes nothing of it.
    await post({ model: "gpt-4.1", validFrom: "2025-01-01", inputMicros: 1, outputMicros: 1 });
    expect(await costOf(id)).toEqual(cost);
  });

  it("applies a newer version only to sessions started on or after it", async () => {
    const early = await importOne(refund("o3-early", "2025-06-09T23:59:59.999Z", { model: "o3-2025-04-16" }));
    const onTheDay = await importOne(refund("o3-on-the-day", "2025-06-10T00:00:00.000Z", { model: "o3-2025-04-16" }));
    const late = await importOne(refund("o3-late", "2025-09-01T08:00:00Z", { model: "o3-2025-04-16" }));
    // Before o3 has any price: nothing.
    expect((await costOf(early)).source).toBe("none");
    expect(
      (await post({ model: "o3", validFrom: "2025-04-16", inputMicros: 10_000_000, outputMicros: 40_000_000 })).body
        .sessionsRepriced,
    ).toBe(3);
    // 3896 × $10 + 208 × $40 per million = $0.03896 + $0.00832
    const first = { source: "price_table", micros: 47_280n, usd: 0.04728 };
    expect([await costOf(early), await costOf(onTheDay), await costOf(late)]).toEqual([first, first, first]);
    // The price cut: only the two sessions started on or after 2025-06-10 are priced again.
    const cut = await post({ model: "o3", validFrom: "2025-06-10", inputMicros: 2_000_000, outputMicros: 8_000_000 });
    expect(cut.body.sessionsRepriced).toBe(2);
    const second = { source: "price_table", micros: 9456n, usd: 0.009456 };
    expect([await costOf(early), await costOf(onTheDay), await costOf(late)]).toEqual([first, second, second]);
    // The list: versions newest first.
    const listed = (await call(GET)).body.prices as { model: string; validFrom: string; inputUsdPerMTok: string }[];
    expect(listed.filter((p) => p.model === "o3").map((p) => [p.validFrom.slice(0, 10), p.inputUsdPerMTok])).toEqual([
      ["2025-06-10", "$2.00"],
      ["2025-04-16", "$10.00"],
    ]);
  });

  it("refuses non-admins and bad input with exact errors, writing nothing", async () => {
    const before = await written();
    const good = { model: "gpt-5", validFrom: "2025-08-07", inputMicros: 1_250_000, outputMicros: 10_000_000 };
    expect(await post(good, analystKey)).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "ana@x.test (analyst) may not do this; it needs the admin role.",
          issues: [],
        },
      },
    });
    expect(await post(good, readOnlyKey)).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "root@x.test has read-only access; this needs the admin role.",
          issues: [],
        },
      },
    });
    // Reading is everyone's.
    expect((await call(GET, { key: readOnlyKey })).status).toBe(200);
    const refused = async (body: unknown) => {
      const r = await post(body);
      return [r.status, r.body.error];
    };
    const invalid = (issues: { path: string; message: string }[]) => [
      400,
      { code: "invalid_input", message: "The price is not valid.", issues },
    ];
    expect(await refused({ ...good, inputMicros: -1 })).toEqual(
      invalid([{ path: "inputMicros", message: "inputMicros cannot be negative." }]),
    );
    expect(await refused({ ...good, outputMicros: 1e300 })).toEqual(
      invalid([
        {
          path: "outputMicros",
          message: "outputMicros is at most 1000000000 micro-dollars ($1,000 per million tokens).",
        },
      ]),
    );
    expect(await refused({ ...good, inputMicros: 2.5 })).toEqual(
      invalid([
        { path: "inputMicros", message: "inputMicros must be a whole number of micro-dollars (2.50 USD is 2500000)." },
      ]),
    );
    expect(await refused({ ...good, inputMicros: "1250000" })).toEqual(
      invalid([{ path: "inputMicros", message: "inputMicros must be a number of micro-dollars per million tokens." }]),
    );
    // A __proto__ key is a key like any other: not one a price has.
    expect(await refused(`{"__proto__": {"inputMicros": 1}, ${JSON.stringify(good).slice(1)}`)).toEqual(
      invalid([{ path: "", message: 'Unrecognized key: "__proto__"' }]),
    );
    expect(await refused({ ...good, model: "__proto__" })).toEqual(
      invalid([
        {
          path: "model",
          message:
            "A model name has letters, digits and . : @ + - only (no provider path: openai/gpt-4o is written gpt-4o).",
        },
      ]),
    );
    expect(await refused({ ...good, validFrom: "1999-12-31" })).toEqual(
      invalid([{ path: "validFrom", message: "validFrom must be between 2000 and 2100." }]),
    );
    expect(await refused({ ...good, model: "gpt-4.1", validFrom: "2023-01-01" })).toEqual([
      400,
      {
        code: "invalid_input",
        message:
          "gpt-4.1 (prefix) already has a price valid from 2023-01-01; a version is never changed: add one with a later date.",
        issues: [{ path: "validFrom", message: "a version valid from 2023-01-01 exists" }],
      },
    ]);
    expect(await written()).toEqual(before);
  });

  it("adds the shipped prices once, and prices what is not worked out at start-up", async () => {
    const added = await seedDefaultPrices(db.prisma);
    // gpt-4.1, gpt-4.1-mini and o3 (2025-04-16, 2025-06-10) were added by hand above with the defaults' dates.
    expect(added).toBe(DEFAULT_PRICES.length - 4);
    expect(await seedDefaultPrices(db.prisma)).toBe(0);
    // The sessions the shipped prices marked, worked out; then all of them again in batches of 2: the same figures.
    const all = () =>
      db.prisma.session.findMany({
        orderBy: { id: "asc" },
        select: { id: true, costSource: true, costMicros: true, costUsd: true },
      });
    await db.prisma.session.updateMany({ where: { costSource: "source" }, data: { costSource: null } });
    await backfillCosts(db.prisma);
    const written = await all();
    await db.prisma.session.updateMany({ data: { costSource: null, costMicros: null } });
    expect(await backfillCosts(db.prisma, 2)).toBe(written.length);
    expect(await all()).toEqual(written);
  });
});
