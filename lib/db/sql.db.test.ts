import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { recordings, spansOf } from "@/lib/ingest/otlp/testing";
import { appErrorFromDatabase } from "./errors";
import { Prisma } from "./generated/client";
import { prismaSql, rawTransaction, sqlStatement, sqlTransaction, type SqlTx } from "./sql";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";
import { ingestOtlpSpans } from "@/lib/server/ingest/traces";

// The plain-SQL transactions the incremental trace ingest runs on (./sql.ts): on the driver's own
// transaction on both engines, values as parameters of the same types as through Prisma, all or nothing.

describe.each(TEST_ENGINES)("plain-SQL transactions on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
  });

  const roundTrip = (sql: SqlTx) =>
    sql.query<{ a: string[]; j: unknown; b: string; d: Date; t: boolean; i: number; n: string | null; by: string }[]>`
      SELECT ${["a", `b'"{},`]}::text[] AS a, ${'{"x":[1,"\\u00e9y"]}'}::jsonb AS j, ${12345678901234567n}::bigint::text AS b,
        ${new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))}::timestamptz AS d, ${true}::boolean AS t, ${-7}::int AS i,
        ${null}::text AS n, encode(${Buffer.from([0, 255, 10])}::bytea, 'hex') AS by`;

  it("passes values as parameters, read back as through Prisma", async () => {
    const viaDriver = await sqlTransaction(db.prisma, roundTrip);
    const viaPrisma = await roundTrip(prismaSql(db.prisma));
    const expected = {
      a: ["a", `b'"{},`],
      j: { x: [1, "\u00e9y"] },
      b: "12345678901234567",
      d: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
      t: true,
      i: -7,
      n: null,
      by: "00ff0a",
    };
    expect(viaDriver).toEqual([expected]);
    expect(viaPrisma).toEqual([expected]);
  });

  it("runs one composed statement by itself on the driver, read back as through Prisma", async () => {
    const inner = Prisma.sql`json_build_object('k', ${"v'\""}::text, 'n', ${[1, 2]}::int[])`;
    const query = Prisma.sql`SELECT ${-7}::int AS i, ${inner} AS j, ${null}::text AS n, ${true}::boolean AS t`;
    const expected = { i: -7, j: { k: `v'"`, n: [1, 2] }, n: null, t: true };
    expect(await sqlStatement(db.prisma, query)).toEqual([expected]);
    expect(await db.prisma.$queryRaw(query)).toEqual([expected]);
  });

  it("reports the database's errors as Prisma's are: bad input is the same 4xx on either path", async () => {
    const failing = [
      (sql: SqlTx) => sql.query`SELECT ${2_147_483_647}::int + 1 AS n`, // out of range (22003)
      (sql: SqlTx) => sql.query`SELECT ${'{"a":"\\u0000"}'}::jsonb ->> 'a' AS t`, // NUL in text (22P05)
    ];
    for (const statement of failing) {
      const viaDriver = await sqlTransaction(db.prisma, statement).catch((error: unknown) => error);
      const viaPrisma = await statement(prismaSql(db.prisma)).catch((error: unknown) => error);
      const [driver, prisma] = [appErrorFromDatabase(viaDriver), appErrorFromDatabase(viaPrisma)];
      expect(prisma).not.toBeNull();
      expect([driver?.code, driver?.message]).toEqual([prisma!.code, prisma!.message]);
    }
  });

  it("writes nothing when the function throws, and commits what it wrote otherwise", async () => {
    const name = `sql-test-${engine}`;
    await expect(
      sqlTransaction(db.prisma, async (sql) => {
        await sql.query`INSERT INTO "Agent" (id, name, adapter) VALUES (${`${name}-1`}, ${name}, 'generic')`;
        throw new Error("after the insert");
      }),
    ).rejects.toThrow("after the insert");
    expect(await db.prisma.agent.count({ where: { name } })).toBe(0);
    await sqlTransaction(db.prisma, async (sql) => {
      await sql.query`INSERT INTO "Agent" (id, name, adapter) VALUES (${`${name}-2`}, ${name}, 'generic')`;
    });
    expect(await db.prisma.agent.findMany({ where: { name }, select: { id: true } })).toEqual([{ id: `${name}-2` }]);
  });

  it("runs raw statements as Prisma's $queryRaw and $executeRaw do, on the driver's transaction, all or nothing", async () => {
    const name = `raw-test-${engine}`;
    const interactive = vi.spyOn(db.prisma, "$transaction");
    try {
      const inner = Prisma.sql`json_build_object('k', ${"v'\""}::text)`;
      const read = await rawTransaction(db.prisma, async (tx) => {
        const inserted = await tx.$executeRaw`
          INSERT INTO "Agent" (id, name, adapter) VALUES (${`${name}-1`}, ${`${name}-1`}, 'generic'), (${`${name}-2`}, ${`${name}-2`}, 'generic')`;
        const renamed = await tx.$executeRaw(
          Prisma.sql`UPDATE "Agent" SET adapter = ${"openai"}::text WHERE id = ${`${name}-2`}::text`,
        );
        const rows = await tx.$queryRaw<{ i: number; j: unknown; ids: string[] }[]>(
          Prisma.sql`SELECT ${-7}::int AS i, ${inner} AS j, array_agg(id ORDER BY id) AS ids FROM "Agent" WHERE id LIKE ${`${name}-%`}`,
        );
        // A composed fragment inside a tagged template is joined into the statement, as Prisma's $queryRaw does.
        const tagged = await tx.$queryRaw<{ j: unknown }[]>`SELECT ${inner} AS j`;
        return { inserted, renamed, rows, tagged };
      });
      expect(read).toEqual({
        inserted: 2,
        renamed: 1,
        rows: [{ i: -7, j: { k: `v'"` }, ids: [`${name}-1`, `${name}-2`] }],
        tagged: [{ j: { k: `v'"` } }],
      });
      expect(interactive).toHaveBeenCalledTimes(0);
    } finally {
      interactive.mockRestore();
    }
    await expect(
      rawTransaction(db.prisma, async (tx) => {
        await tx.$executeRaw`DELETE FROM "Agent" WHERE id LIKE ${`${name}-%`}`;
        throw new Error("after the delete");
      }),
    ).rejects.toThrow("after the delete");
    expect(await db.prisma.agent.count({ where: { id: { startsWith: `${name}-` } } })).toBe(2);
  });

  it("stores a new session's export and one that adds to it on the driver's transaction, without Prisma's", async () => {
    // Two runs of a recorded session, a minute apart under trace ids (and tool call ids) of their own.
    const run = spansOf(recordings("json").get("ai6-generate")!);
    const [first, second] = [0, 1].map((c) =>
      run.map((s) => ({
        ...(JSON.parse(JSON.stringify(s).replace(/call_(lookup|refund|time)_(\d+)/g, `call_$1_$2_${c}`)) as typeof s),
        traceId: `${engine === "pglite" ? "a" : "b"}${c}${s.traceId.slice(2)}`,
        startTimeUnixNano: String(BigInt(s.startTimeUnixNano) + BigInt(c) * 60_000_000_000n),
        endTimeUnixNano:
          s.endTimeUnixNano === null ? null : String(BigInt(s.endTimeUnixNano) + BigInt(c) * 60_000_000_000n),
      })),
    );
    const interactive = vi.spyOn(db.prisma, "$transaction");
    try {
      // The first export creates the session, and the second adds to it: both on the driver's transaction (a new
      // session's first export takes the incremental path too), never Prisma's.
      expect(await ingestOtlpSpans(db.prisma, first!, "otlp-json")).toMatchObject({ ok: true, incremental: true });
      expect(await ingestOtlpSpans(db.prisma, second!, "otlp-json")).toMatchObject({ ok: true, incremental: true });
      expect(interactive).toHaveBeenCalledTimes(0);
    } finally {
      interactive.mockRestore();
    }
  });
});
