import { describe, expect, it } from "vitest";
import { branchVerdict, fixFigures, type FixReplay } from "./fix";

const RUN = { kind: "run" } as const;
const CHECK = { kind: "check", checkName: "no second refund" } as const;

const step = (seq: number, name: string, status: string, kind = "tool_call") => ({
  seq,
  kind,
  name,
  status,
  error: status === "failed" ? { type: "E", message: "m" } : null,
});
const replay = (status: string, steps: FixReplay["steps"] = [], branchPassed: boolean | null = null): FixReplay => ({
  sessionId: `s-${status}`,
  status,
  branchPassed,
  steps,
});

describe("whether a branch still fails the way its cluster does", () => {
  it("run judge: a completed branch passes unless a tool call failed and no later call of that tool succeeded", () => {
    expect(branchVerdict(RUN, replay("completed"))).toBe("passes");
    expect(branchVerdict(RUN, replay("completed", [step(6, "refund_payment", "failed")]))).toBe("fails");
    expect(
      branchVerdict(
        RUN,
        replay("completed", [step(2, "refund_payment", "failed"), step(4, "refund_payment", "completed")]),
      ),
    ).toBe("passes");
    // A failed model step alone is not the run failing: the run went on to its end.
    expect(branchVerdict(RUN, replay("completed", [step(3, "gpt", "failed", "model_call")]))).toBe("passes");
    expect(branchVerdict(RUN, replay("failed"))).toBe("fails");
    expect(branchVerdict(RUN, replay("blocked"))).toBe("fails");
    for (const s of [
      "paused",
      "awaiting_approval",
      "budget_exhausted",
      "stopped_on_divergence",
      "cancelled",
      "abandoned",
    ])
      expect(branchVerdict(RUN, replay(s)), s).toBe("undecided");
    for (const s of ["queued", "running"]) expect(branchVerdict(RUN, replay(s)), s).toBe("pending");
  });

  it("check judge: the branch's verdict decides; no verdict is undecided", () => {
    expect(branchVerdict(CHECK, replay("completed", [step(6, "refund_payment", "failed")], true))).toBe("passes");
    expect(branchVerdict(CHECK, replay("completed", [], false))).toBe("fails");
    expect(branchVerdict(CHECK, replay("completed", [], null))).toBe("undecided");
    expect(branchVerdict(CHECK, replay("paused", [], true))).toBe("undecided");
  });
});

describe("a fix's figures", () => {
  it("counts members fixed and control sessions broken, with the Wilson interval of the share fixed", () => {
    const members = [replay("completed"), replay("completed"), replay("failed"), replay("paused"), replay("queued")];
    const control = [replay("completed"), replay("blocked")];
    const f = fixFigures(RUN, members, control);
    expect(f.members).toMatchObject({ count: 2, judged: 3, undecided: 1, pending: 1 });
    expect(f.members.rate.interval!.low).toBeCloseTo(0.2077, 4);
    expect(f.members.rate.interval!.high).toBeCloseTo(0.9385, 4);
    expect(f.control).toMatchObject({ count: 1, judged: 2 });
    expect(f.done).toBe(false);
    expect(f.sentence).toBe(
      "fixes 2 of 3 (95% interval 21%–94%), breaks 1 of 2 control sessions, 1 still running, 1 without a verdict",
    );
    expect(fixFigures(RUN, [], null).sentence).toBe("fixes 0 of 0, no control sample");
    expect(fixFigures(RUN, [replay("completed")], [replay("completed")]).sentence).toBe(
      "fixes 1 of 1 (95% interval 21%–100%), breaks none of 1 control session",
    );
  });
});
