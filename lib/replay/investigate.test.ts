import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blameProbeBound, minimizeEdits, searchBlame, type ProbeOutcome } from "./investigate";

/** Model steps at seqs 3, 7, 11, …: the search names steps by the caller's identifiers, not by position. */
const seqs = (n: number) => Array.from({ length: n }, (_, i) => 3 + 4 * i);

/** A run whose failure is decided at step index `decided`: forking there or earlier fixes it in every trial. */
const decidedAt =
  (steps: readonly number[], decided: number, trials = 1) =>
  async (step: number): Promise<ProbeOutcome> => ({
    passes: steps.indexOf(step) <= decided ? trials : 0,
    trials,
  });

describe("blame search: the step that decided a failure", () => {
  it("names the deciding step of a 40-step run with 7 probes, not 40", async () => {
    const steps = seqs(40);
    const probed: number[] = [];
    const result = await searchBlame({
      steps,
      share: 0.5,
      probe: decidedAt(steps, 13),
      onProbe: (p) => probed.push(p.step),
    });
    expect(result).toMatchObject({ kind: "decided", step: steps[13], index: 13 });
    expect(probed).toEqual(result.probes.map((p) => p.step));
    expect(probed[0]).toBe(steps[0]);
    expect(probed.length).toBe(blameProbeBound(40));
    expect(blameProbeBound(40)).toBe(7);
  });

  it("says re-running the model does not fix a run whose first fork point already fails, after one probe", async () => {
    const steps = seqs(10);
    const result = await searchBlame({ steps, share: 1, probe: async () => ({ passes: 0, trials: 3 }) });
    expect(result.kind).toBe("not_fixable");
    expect(result.probes).toHaveLength(1);
  });

  it("counts a probe as a fix only when its pass rate reaches the share asked for", async () => {
    const steps = seqs(4);
    // Index 0 and 1 pass 3 of 5 trials, later ones 2 of 5.
    const probe = async (step: number) => ({ passes: steps.indexOf(step) <= 1 ? 3 : 2, trials: 5 });
    expect(await searchBlame({ steps, share: 0.6, probe })).toMatchObject({ kind: "decided", index: 1 });
    expect(await searchBlame({ steps, share: 0.4, probe })).toMatchObject({ kind: "decided", index: 3 });
    expect((await searchBlame({ steps, share: 0.8, probe })).kind).toBe("not_fixable");
  });

  it("stops when cancelled, keeping the probes it ran", async () => {
    const steps = seqs(16);
    let calls = 0;
    const result = await searchBlame({
      steps,
      share: 1,
      probe: decidedAt(steps, 9),
      isCancelled: () => calls++ >= 2,
    });
    expect(result.kind).toBe("cancelled");
    expect(result.probes).toHaveLength(2);
  });

  it("refuses a probe that reports an impossible count", async () => {
    await expect(searchBlame({ steps: [1], share: 1, probe: async () => ({ passes: 2, trials: 1 }) })).rejects.toThrow(
      "probe at step 1 gave 2 passes of 1",
    );
  });

  it("finds every deciding step within the bound, for any run length (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 300 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }))),
        async ([n, decided]) => {
          const steps = seqs(n);
          const result = await searchBlame({ steps, share: 1, probe: decidedAt(steps, decided) });
          expect(result).toMatchObject({ kind: "decided", index: decided, step: steps[decided] });
          expect(result.probes.length).toBeLessThanOrEqual(blameProbeBound(n));
          expect(new Set(result.probes.map((p) => p.index)).size).toBe(result.probes.length);
        },
      ),
    );
  });
});

describe("smallest fixing change (ddmin)", () => {
  /** Fixes exactly when every needed edit is kept. */
  const needs =
    (needed: readonly number[], seen?: string[]) =>
    async (kept: readonly number[]): Promise<boolean> => {
      seen?.push(kept.join(","));
      return needed.every((i) => kept.includes(i));
    };

  it("finds the 2 edits of 8 that are needed", async () => {
    const seen: string[] = [];
    const result = await minimizeEdits({ count: 8, test: needs([2, 5], seen) });
    expect(result).toMatchObject({ kind: "minimal", kept: [2, 5] });
    expect(seen).not.toContain("");
    expect(new Set(seen).size).toBe(seen.length);
    expect(result.probes.map((p) => p.kept.join(","))).toEqual(seen);
  });

  it("says so when the full set of edits does not fix the run", async () => {
    const result = await minimizeEdits({ count: 5, test: async () => false });
    expect(result).toEqual({ kind: "not_fixing", probes: [{ kept: [0, 1, 2, 3, 4], fixes: false }] });
  });

  it("a single edit is already minimal", async () => {
    expect(await minimizeEdits({ count: 1, test: async () => true })).toMatchObject({ kind: "minimal", kept: [0] });
  });

  it("stops when cancelled with the smallest fixing set found so far", async () => {
    let probes = 0;
    const result = await minimizeEdits({ count: 8, test: needs([6]), isCancelled: () => probes++ >= 3 });
    expect(result).toMatchObject({ kind: "cancelled", kept: [4, 5, 6, 7] });
  });

  it("returns exactly the needed edits for any needed subset (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 24 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: n }),
            ),
          ),
        async ([n, needed]) => {
          const result = await minimizeEdits({ count: n, test: needs(needed) });
          expect(result).toMatchObject({ kind: "minimal", kept: [...needed].sort((a, b) => a - b) });
        },
      ),
    );
  });

  it("ends 1-minimal when either of two edit sets fixes the run (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 16 }).chain((n) => {
          const subset = fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: n });
          return fc.tuple(fc.constant(n), subset, subset);
        }),
        async ([n, a, b]) => {
          const fixes = (kept: readonly number[]) =>
            a.every((i) => kept.includes(i)) || b.every((i) => kept.includes(i));
          const result = await minimizeEdits({ count: n, test: async (kept) => fixes(kept) });
          if (result.kind !== "minimal") throw new Error(result.kind);
          expect(fixes(result.kept)).toBe(true);
          for (const drop of result.kept) expect(fixes(result.kept.filter((i) => i !== drop))).toBe(false);
        },
      ),
    );
  });
});
