/**
 * What failure clusters add to an import, on PGlite and PostgreSQL (a database of its own each, dropped at
 * the end). The same generated cohort imported twice into fresh databases: every session passing (no
 * cluster statement runs) and every session failing (each writes its cluster and membership); the
 * difference per session is the clustering's cost at ingest. Also the signature alone (mask + hash) per
 * session, in this process. Prints the load average, since the machine is often shared.
 * Run: npx tsx bench/clusters.ts [-- --sessions 300 --runs 3]
 */
import { loadavg } from "node:os";
import { failureSignature, signatureHash } from "../lib/clusters/signature";
import { cohort, jsonlDocuments } from "../lib/clusters/testing";
import { createTestDatabase, TEST_ENGINES } from "../lib/db/testing";
import { importAndSave } from "../lib/server/ingest/imports";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}
const N = arg("sessions", 300);
const RUNS = arg("runs", 3);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function importMs(engine: (typeof TEST_ENGINES)[number], share: number, seed: number): Promise<number> {
  const sessions = cohort({
    agent: "bench-agent",
    seed,
    perVersion: { "1": { count: N, mix: { declined: share / 2, not_found: share / 2 } } },
  });
  const db = await createTestDatabase(engine);
  try {
    const started = performance.now();
    for (const doc of jsonlDocuments(sessions, 100)) {
      const result = await importAndSave(db.prisma, doc, { format: "native" });
      if (!result.ok) throw new Error("import failed");
    }
    return (performance.now() - started) / N;
  } finally {
    await db.drop();
  }
}

async function main() {
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  const sample = cohort({
    agent: "a",
    seed: 1,
    perVersion: { "1": { count: 2000, mix: { declined: 0.5, not_found: 0.5 } } },
  });
  const steps = sample.map((s) =>
    (
      s.doc as {
        events: {
          seq: number;
          kind: string;
          name: string;
          status?: string;
          error?: { type: string; message: string };
        }[];
      }
    ).events.map((e) => ({ ...e, status: e.error ? "failed" : "completed", error: e.error ?? null })),
  );
  const t0 = performance.now();
  for (const s of steps) signatureHash(failureSignature({ status: "failed" }, s)!);
  console.log(
    `signature (mask + hash) per failed session: ${(((performance.now() - t0) * 1000) / steps.length).toFixed(1)} µs`,
  );
  for (const engine of TEST_ENGINES) {
    const passing: number[] = [];
    const failing: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      passing.push(await importMs(engine, 0, 10 + r));
      failing.push(await importMs(engine, 1, 10 + r));
    }
    const spread = (xs: number[]) =>
      `${median(xs).toFixed(2)} ms (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
    console.log(
      `${engine}: import per session, all passing ${spread(passing)}, all failing ${spread(failing)}; clustering ≈ ${(median(failing) - median(passing)).toFixed(2)} ms = ${(((median(failing) - median(passing)) / median(passing)) * 100).toFixed(0)}% of a passing session's import`,
    );
  }
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
}

await main();
