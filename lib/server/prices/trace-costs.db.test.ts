/**
 * Trace exports carry tokens and never a cost: their sessions are priced from the table, the first export
 * (a full rebuild) as it is written, each later one (an increment, which only marks the session) by the
 * sweep after it. A session whose stored cost is an estimate still takes the increment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OtlpSpan } from "@/lib/ingest/otlp";
import { recordings, spansOf } from "@/lib/ingest/otlp/testing";
import { backfillCosts } from "@/lib/db/prices";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { ingestOtlpSpans } from "../ingest/traces";
import { localAdmin } from "../principal";
import { costSweep } from "./costs";
import { addPrice } from "./prices";

const MINUTE = 60_000_000_000n;

/** Three runs of the ai6-generate recording (3 model calls of 42 input and 7 output tokens each) in one session. */
function threeRuns(name: string): OtlpSpan[][] {
  const spans = spansOf(recordings("json").get("ai6-generate")!);
  return [0, 1, 2].map((c) =>
    spans.map((s) => {
      const copy = JSON.parse(JSON.stringify(s).replace(/call_(\w+?)_(\d+)/g, `call_$1_$2_${c}`)) as OtlpSpan;
      const rename = (attrs: Record<string, unknown>) => {
        const out = { ...attrs };
        for (const key of ["session.id", "gen_ai.conversation.id", "ai.telemetry.metadata.sessionId"])
          if (typeof out[key] === "string") out[key] = name;
        return out;
      };
      return {
        ...copy,
        traceId: `${c.toString(16).padStart(4, "0")}${s.traceId.slice(4)}`,
        startTimeUnixNano: String(BigInt(s.startTimeUnixNano) + BigInt(c) * MINUTE),
        endTimeUnixNano: s.endTimeUnixNano === null ? null : String(BigInt(s.endTimeUnixNano) + BigInt(c) * MINUTE),
        attributes: rename(copy.attributes),
        resource: rename(copy.resource),
      };
    }),
  );
}

describe.each(TEST_ENGINES)("trace sessions priced from the table on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    // This test works the marked costs out itself, when it has looked at the mark.
    costSweep.delayMs = 600_000;
    db = await createTestDatabase(engine);
    // $1.00 in, $2.00 out per million tokens: a call of 42 + 7 tokens is 42 + 14 = 56 micro-dollars.
    await addPrice(
      localAdmin("admin"),
      { model: "scripted-model", validFrom: "2020-01-01", inputMicros: 1_000_000, outputMicros: 2_000_000 },
      db.prisma,
    );
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("prices each export's session, the increments after the sweep, and keeps them incremental", async () => {
    const runs = threeRuns(`priced-${engine}`);
    const cost = async () =>
      db.prisma.session.findFirstOrThrow({
        where: { externalId: `session:priced-${engine}` },
        select: { costSource: true, costMicros: true, costUsd: true, inputTokens: true, outputTokens: true },
      });
    const first = await ingestOtlpSpans(db.prisma, runs[0]!, "otlp-json");
    // A new session's first export takes the incremental path too, and is priced as it is written.
    expect(first.ok && first.incremental).toBe(true);
    expect(await cost()).toEqual({
      costSource: "price_table",
      costMicros: 168n,
      costUsd: 0.000168,
      inputTokens: 126,
      outputTokens: 21,
    });
    for (const [i, run] of [runs[1]!, runs[2]!].entries()) {
      const result = await ingestOtlpSpans(db.prisma, run, "otlp-json");
      // An estimated cost is no source cost: the export still adds only its window.
      expect(result.ok && result.incremental).toBe(true);
      // Marked, with the source's figure (none) until the sweep works it out from the whole session.
      expect(await cost()).toMatchObject({ costSource: null, costMicros: null, costUsd: 0 });
      await backfillCosts(db.prisma);
      const micros = 168 * (i + 2);
      expect(await cost()).toEqual({
        costSource: "price_table",
        costMicros: BigInt(micros),
        costUsd: micros / 1_000_000,
        inputTokens: 126 * (i + 2),
        outputTokens: 21 * (i + 2),
      });
    }
  });
});
