import { describe, expect, it, vi } from "vitest";
import type { FixtureEntry } from "./log";
import { LiveCallInDoubt, RunInterrupted, type ToolExecutor } from "./tool-call";
import { policyWith, run, sessionOf, toolSteps } from "./testing";

const base = sessionOf([{ name: "a", args: { k: 1 }, result: 1 }], [{ name: "b", args: { k: 2 }, result: 2 }]);
const policy = policyWith({ type: "history", scope: "baseline", on_miss: "fail" }, { a: { type: "passthrough" } });
const tools = [{ name: "a", sideEffect: "read" as const }];

describe("a live call an earlier run started and never got the answer of", () => {
  it("pauses for its answer instead of calling; the fixture given for it answers the call on resume", async () => {
    const inDoubt = vi.fn<ToolExecutor>(async () => {
      throw new LiveCallInDoubt('"a" was called live by an earlier run that stopped before its answer was kept.');
    });
    const paused = await run(base, policy, { tools, executors: { tool: inDoubt } });
    expect(paused.status).toBe("paused");
    expect(paused.pending).toMatchObject({
      waitingFor: "fixture",
      tool: "a",
      step: 2,
      miss: {
        reason: "live_call_in_doubt",
        message: '"a" was called live by an earlier run that stopped before its answer was kept.',
      },
    });
    expect(paused.newLogEntries).toEqual([]);

    const fixture: FixtureEntry = {
      type: "fixture",
      id: "fx1",
      at: null,
      step: paused.pending!.step,
      tool: "a",
      cacheKey: paused.pending!.cacheKey,
      output: 41,
      author: "dana",
      note: "from the tool's audit log",
    };
    const never = vi.fn<ToolExecutor>(async () => ({ output: "LIVE AGAIN" }));
    const resumed = await run(base, policy, { tools, executors: { tool: never }, log: [fixture] });
    expect(never).not.toHaveBeenCalled();
    expect(resumed.status).toBe("completed");
    expect(toolSteps(resumed).map((s) => [s.name, s.source, s.output])).toEqual([
      ["a", "fixture", 41],
      ["b", "recorded", 2],
    ]);
  });

  it("an executor that says the run is over ends the run (it is not a tool error the agent sees)", async () => {
    const over = vi.fn<ToolExecutor>(async () => {
      throw new RunInterrupted("taken over");
    });
    await expect(run(base, policy, { tools, executors: { tool: over } })).rejects.toThrow(RunInterrupted);
  });
});
