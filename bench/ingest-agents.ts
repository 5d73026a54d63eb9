import { ingestAgentsItems } from "../lib/server/ingest/traces";
import { fallbacks } from "../lib/server/ingest/increment";
import type { Db } from "../lib/db/client";
import { agentsRunsOf } from "../lib/ingest/testing";

// AGENTS_RUNS=200: a longer group (an export's cost should not change with it).
const AGENTS_RUNS = Number(process.env.AGENTS_RUNS ?? 40);

/** The Agents SDK path: one group of AGENTS_RUNS runs as 1 and as 100 exports, per round. */
export async function agentsSection(prisma: Db, ROUNDS: number) {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const agentTotals = new Map<number, number[]>();
  const agentThirds: { first: number[]; last: number[] } = { first: [], last: [] };
  let agentItems = 0;
  let incremental = 0;
  /** The 1-export runs: each is a new group's first export. */
  let oneIncremental = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (const batches of [1, 100]) {
      const items = agentsRunsOf(`agents-bench-${round}-${batches}`, AGENTS_RUNS);
      agentItems = items.length;
      const t0 = performance.now();
      for (let b = 0; b < batches; b++) {
        const part = items.slice(
          Math.floor((b * items.length) / batches),
          Math.floor(((b + 1) * items.length) / batches),
        );
        if (part.length === 0) continue;
        const te = performance.now();
        const result = await ingestAgentsItems(prisma, part);
        if (!result.ok) throw new Error(JSON.stringify(result.issues.slice(0, 3)));
        if (batches === 100 && result.incremental) incremental++;
        if (batches === 1 && result.incremental) oneIncremental++;
        if (batches === 100 && b > 0 && b <= 33) agentThirds.first.push(performance.now() - te);
        if (batches === 100 && b >= 67) agentThirds.last.push(performance.now() - te);
      }
      const list = agentTotals.get(batches) ?? [];
      list.push(performance.now() - t0);
      agentTotals.set(batches, list);
    }
  }
  const [aFirst, aLast] = [median(agentThirds.first), median(agentThirds.last)];
  const aOne = median(agentTotals.get(1)!);
  const aHundred = median(agentTotals.get(100)!);
  console.log(
    `Agents SDK, one group of ${agentItems} items: 1 export (a new group's first: ${oneIncremental} of ${ROUNDS} incremental) ${aOne.toFixed(0)} ms, 100 exports ${aHundred.toFixed(0)} ms (medians of ${ROUNDS}): ${(aHundred / aOne).toFixed(2)}× one export`,
  );
  console.log(
    `Agents SDK, 100 exports: median export ${aFirst.toFixed(1)} ms in the first third vs ${aLast.toFixed(1)} ms in the last: ${(aLast / aFirst).toFixed(2)}× (1.00 = flat)`,
  );
  const reasons = [...fallbacks].filter(([reason]) => reason.startsWith("agents: "));
  console.log(
    `Agents SDK, 100 exports: ${incremental} of ${100 * ROUNDS} incremental; full rebuilds by reason (whole run): ${reasons.map(([reason, n]) => `${reason.slice(8)} ${n}`).join(", ") || "none"}`,
  );
}
