import { describe, expect, it } from "vitest";
import { countByStatus, countExperimentResults, describeCounts, experimentState } from "./experiment-status";

const of = (...statuses: string[]) => statuses.map((status) => ({ status }));

describe("experiment status counts", () => {
  it("counts each member once: finished, failed, waiting, running, queued", () => {
    const counts = countExperimentResults(
      of(
        "completed",
        "stopped_on_divergence",
        "budget_exhausted",
        "blocked",
        "failed",
        "paused",
        "paused",
        "awaiting_approval",
        "running",
        "queued",
      ),
    );
    expect(counts).toEqual({
      total: 10,
      finished: 4,
      failed: 1,
      waitingForFixture: 2,
      waitingForApproval: 1,
      running: 1,
      queued: 1,
    });
    expect(describeCounts(counts)).toBe(
      "4 finished · 1 failed · 2 waiting for a fixture · 1 waiting for an approval · 1 running · 1 queued (of 10)",
    );
    expect(describeCounts(countExperimentResults([]))).toBe("nothing yet (of 0)");
  });

  it("a finished run with members waiting is not completed", () => {
    expect(experimentState("completed", countExperimentResults(of("completed", "paused", "awaiting_approval")))).toBe(
      "waiting_for_fixtures",
    );
    expect(experimentState("completed", countExperimentResults(of("completed", "awaiting_approval")))).toBe(
      "waiting_for_approvals",
    );
    expect(experimentState("completed", countExperimentResults(of("completed", "failed")))).toBe("completed");
    expect(experimentState("running", countExperimentResults(of("paused")))).toBe("running");
    expect(experimentState("failed", countExperimentResults(of("paused")))).toBe("failed");
    expect(experimentState("pending", countExperimentResults(of("queued")))).toBe("pending");
    // A cancelled experiment says so; it was called completed.
    expect(experimentState("cancelled", countExperimentResults(of("completed", "cancelled")))).toBe("cancelled");
  });

  it("counts the same from a count per status as from the members themselves (what the list reads)", () => {
    const members = of(
      "completed",
      "paused",
      "paused",
      "failed",
      "awaiting_approval",
      "queued",
      "running",
      "cancelled",
    );
    expect(
      countByStatus({ completed: 1, paused: 2, failed: 1, awaiting_approval: 1, queued: 1, running: 1, cancelled: 1 }),
    ).toEqual(countExperimentResults(members));
    expect(experimentState("completed", countByStatus({ completed: 2, paused: 2 }))).toBe("waiting_for_fixtures");
  });
});
