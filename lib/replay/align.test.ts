import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { editDistance, matchSequences, type AlignStats } from "./align";
import { alignEvents, compareRuns } from "./compare";
import type { SessionEvent } from "./events";

/** The length of a longest common subsequence, by the quadratic table (the reference). */
function lcsLength(a: readonly number[], b: readonly number[]): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const curr = [0];
    for (let j = 1; j <= b.length; j++)
      curr[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, curr[j - 1]!);
    prev = curr;
  }
  return prev[b.length]!;
}

/** Levenshtein by the full table (the reference). */
function levenshtein(a: readonly string[], b: readonly string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const curr = [i];
    for (let j = 1; j <= b.length; j++)
      curr[j] = Math.min(prev[j]! + 1, curr[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = curr;
  }
  return prev[b.length]!;
}

const codesOf = (xs: readonly number[]) => Math.max(0, ...xs) + 1;
const match = (a: number[], b: number[]) => matchSequences(a, b, Math.max(codesOf(a), codesOf(b)));
const asPairs = (flat: number[]): [number, number][] =>
  Array.from({ length: flat.length / 2 }, (_, k) => [flat[2 * k]!, flat[2 * k + 1]!]);

let nextSeq = 0;
function step(kind: SessionEvent["kind"], name: string, cacheKey: string | null, output: unknown = null): SessionEvent {
  return {
    seq: nextSeq++,
    kind,
    name,
    input: cacheKey === null ? null : { args: { key: cacheKey } },
    output,
    error: null,
    status: "completed",
    startedAt: null,
    durationMs: null,
    usage: null,
    parentSeq: null,
    cacheKey,
    occurrence: null,
  };
}
const model = (out: unknown = "m") => step("model_call", "gpt", null, out);
const tool = (name: string, key: string, out: unknown = key) => step("tool_call", name, key, out);
/** Both runs' steps numbered from 0 on their own side, as a replay's are. */
const numbered = (events: SessionEvent[]) => events.map((e, seq) => ({ ...e, seq }));
const shape = (base: SessionEvent[], branch: SessionEvent[]) =>
  alignEvents(numbered(base), numbered(branch)).map((p) => `${p.type} ${p.id}`);

describe("matchSequences", () => {
  it("matches equal sequences one to one, and nothing when no element is shared", () => {
    expect(asPairs(match([1, 2, 3], [1, 2, 3]))).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    expect(match([1, 2, 3], [4, 5])).toEqual([]);
    expect(match([], [1])).toEqual([]);
  });

  it("an insertion, a deletion and a substitution leave the rest matched", () => {
    expect(asPairs(match([1, 2, 3, 4], [1, 2, 9, 3, 4]))).toEqual([
      [0, 0],
      [1, 1],
      [2, 3],
      [3, 4],
    ]);
    expect(asPairs(match([1, 2, 3, 4], [1, 3, 4]))).toEqual([
      [0, 0],
      [2, 1],
      [3, 2],
    ]);
    expect(asPairs(match([1, 2, 3], [1, 7, 3]))).toEqual([
      [0, 0],
      [2, 2],
    ]);
  });

  it("is a monotone matching of equal elements as long as a longest common subsequence (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 40 }),
        (a, b) => {
          const pairs = asPairs(match(a, b));
          for (let k = 0; k < pairs.length; k++) {
            const [i, j] = pairs[k]!;
            expect(a[i]).toBe(b[j]);
            if (k > 0) {
              expect(i).toBeGreaterThan(pairs[k - 1]![0]);
              expect(j).toBeGreaterThan(pairs[k - 1]![1]);
            }
          }
          expect(pairs.length).toBe(lcsLength(a, b));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("costs work linear in the length when the differences cannot match (every call sent other arguments)", () => {
    // Model steps (code 0) between tool calls whose codes are new on each side: the shape that made the old
    // search quadratic.
    const work = (n: number) => {
      const a: number[] = [];
      const b: number[] = [];
      for (let k = 0; k < n; k++) {
        a.push(0, 1 + 2 * k);
        b.push(0, 2 + 2 * k);
      }
      const stats: AlignStats = { steps: 0 };
      const pairs = matchSequences(a, b, 2 * n + 2, stats);
      expect(pairs.length / 2).toBe(n);
      return stats.steps;
    };
    const small = work(1_000);
    const large = work(10_000);
    expect(large / small).toBeLessThan(11);
  });

  it("costs (n + m)·d for d differences among elements that can match, not n²", () => {
    // One moved element per 100: d grows with n, the work with n·d.
    const work = (n: number) => {
      const a = Array.from({ length: n }, (_, k) => k % 50);
      const b = a.map((x, k) => (k % 100 === 0 ? (x + 1) % 50 : x));
      const stats: AlignStats = { steps: 0 };
      matchSequences(a, b, 50, stats);
      return stats.steps;
    };
    const d1 = work(1_000);
    const d10 = work(10_000);
    // n·d grows 100× from 1,000 to 10,000 here (d = n/100); n² alone would be the same 100×, so check the
    // constant: at most a few steps per (n·d) unit.
    expect(d10).toBeLessThan(8 * 10_000 * (10_000 / 100));
    expect(d1).toBeGreaterThan(0);
  });
});

describe("alignEvents: exact pairs", () => {
  it("an inserted step is inserted, the steps around it equal", () => {
    const base = [model(), tool("a", "1"), model()];
    const branch = [model(), tool("a", "1"), tool("notify", "n"), model()];
    expect(shape(base, branch)).toEqual(["equal p0-0", "equal p1-1", "inserted i2", "equal p2-3"]);
  });

  it("a deleted step is removed, the steps around it equal", () => {
    const base = [model(), tool("a", "1"), tool("b", "2"), model()];
    const branch = [model(), tool("a", "1"), model()];
    expect(shape(base, branch)).toEqual(["equal p0-0", "equal p1-1", "removed r2", "equal p3-2"]);
  });

  it("an edited call (same tool, other arguments) is one changed pair; an edited result too", () => {
    const base = [model(), tool("a", "1"), tool("b", "2", "x"), model()];
    const branch = [model(), tool("a", "9"), tool("b", "2", "y"), model()];
    expect(shape(base, branch)).toEqual(["equal p0-0", "changed p1-1", "changed p2-2", "equal p3-3"]);
  });

  it("another tool in the same place is removed then inserted", () => {
    const base = [model(), tool("a", "1"), model()];
    const branch = [model(), tool("b", "1"), model()];
    expect(shape(base, branch)).toEqual(["equal p0-0", "removed r1", "inserted i1", "equal p2-2"]);
  });

  it("a call moved later is removed where it was and inserted where it went, the calls between equal", () => {
    const base = [tool("a", "1"), tool("b", "2"), tool("c", "3"), tool("d", "4")];
    const branch = [tool("b", "2"), tool("c", "3"), tool("a", "1"), tool("d", "4")];
    expect(shape(base, branch)).toEqual(["removed r0", "equal p1-0", "equal p2-1", "inserted i2", "equal p3-3"]);
  });

  it("every call of a long run sent other arguments: each is one changed pair, in linear work", () => {
    const runs = (n: number) => {
      const base: SessionEvent[] = [];
      const branch: SessionEvent[] = [];
      for (let k = 0; k < n; k++) {
        base.push(model(k), tool("lookup", `a${k}`));
        branch.push(model(k), tool("lookup", `b${k}`));
      }
      const stats: AlignStats = { steps: 0 };
      const c = compareRuns(numbered(base), numbered(branch), { deltas: false, stats });
      expect(c.pairs.filter((p) => p.type === "changed")).toHaveLength(n);
      expect(c.pairs).toHaveLength(2 * n);
      return stats.steps;
    };
    expect(runs(5_000) / runs(500)).toBeLessThan(11);
  });

  it("every pair's steps keep their order on both sides, and every step is in exactly one pair (property)", () => {
    const event = fc
      .tuple(fc.constantFrom("model", "a", "b", "c"), fc.integer({ min: 0, max: 3 }))
      .map(([what, k]) => (what === "model" ? model(k % 2) : tool(what, String(k))));
    fc.assert(
      fc.property(fc.array(event, { maxLength: 30 }), fc.array(event, { maxLength: 30 }), (a, b) => {
        const base = numbered(a);
        const branch = numbered(b);
        const pairs = alignEvents(base, branch, { deltas: false });
        const baseSeen: number[] = [];
        const branchSeen: number[] = [];
        for (const p of pairs) {
          if (p.type !== "inserted") baseSeen.push(p.baseIndex);
          if (p.type !== "removed" && p.type !== "unreached") branchSeen.push(p.branchIndex);
          if (p.type === "equal" || p.type === "changed") {
            expect(p.base.kind).toBe(p.branch.kind);
            expect(p.base.name).toBe(p.branch.name);
          }
        }
        expect(baseSeen).toEqual(base.map((_, i) => i));
        expect(branchSeen).toEqual(branch.map((_, j) => j));
      }),
      { numRuns: 300 },
    );
  });
});

describe("editDistance", () => {
  it("equals the full table's distance (property)", () => {
    const names = fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 });
    fc.assert(
      fc.property(names, names, (a, b) => {
        expect(editDistance(a, b)).toBe(levenshtein(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it("costs (n + m)·d: one renamed call per 1,000 is cheap at 10,000", () => {
    const work = (n: number) => {
      const a = Array.from({ length: n }, (_, k) => `t${k % 7}`);
      const b = a.map((x, k) => (k % 1000 === 500 ? "other" : x));
      const stats: AlignStats = { steps: 0 };
      expect(editDistance(a, b, stats)).toBe(n / 1000);
      return stats.steps;
    };
    // d grows with n (n/1,000), so the work grows with n·d: 100× from 1,000 to 10,000, where the full table
    // would also grow 100× but from n² = 10⁶. Check the absolute bound instead.
    expect(work(10_000)).toBeLessThan(8 * 10_000 * 10);
    expect(work(1_000)).toBeLessThan(8 * 1_000 * 1);
  });
});
