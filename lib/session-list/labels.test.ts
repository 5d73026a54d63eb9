import { describe, expect, it } from "vitest";
import { sessionDistinction, sessionLabel, sourceId } from "@/lib/session-list/labels";

const base = {
  title: null,
  externalId: null,
  format: "native",
  startedAt: new Date("2023-11-14T22:13:20Z"),
  agent: { name: "checkout-svc" },
};

describe("sessionLabel", () => {
  it("is the title when there is one", () => {
    expect(sessionLabel({ ...base, title: "Refund for order 4821", format: "otlp-json" })).toBe(
      "Refund for order 4821",
    );
  });

  it("is the source's own id for a non-OTLP session without a title", () => {
    expect(sessionLabel({ ...base, externalId: "task-17" })).toBe("task-17");
  });

  it("names an untitled OTLP session by its service and start, not its trace key", () => {
    expect(
      sessionLabel({ ...base, format: "otlp-protobuf", externalId: "trace:0af7651916cd43dd8448eb211c80319c" }),
    ).toBe("checkout-svc · 2023-11-14 22:13:20 UTC");
    expect(sessionLabel({ ...base, format: "otlp-json", startedAt: null })).toBe("checkout-svc");
  });
});

describe("what tells sessions with one title apart", () => {
  const hi = { ...base, title: "Hi, my order A1001 never arrived", agent: { name: "support" } };

  it("names an OTLP or Agents SDK trace by its first 8 hex digits, and another source's id whole up to 28 characters", () => {
    expect(sourceId({ ...hi, format: "otlp-json", externalId: "trace:0af7651916cd43dd8448eb211c80319c" })).toBe(
      "trace 0af76519",
    );
    expect(sourceId({ ...hi, format: "openai-agents", externalId: "trace_9f8e7d6c5b4a39281706f5e4d3c2b1a0" })).toBe(
      "trace 9f8e7d6c",
    );
    expect(sourceId({ ...hi, externalId: "tau-bench:airline:task-13:trial-2" })).toBe("tau-bench:ai…task-13:trial-2");
    expect(sourceId({ ...hi, externalId: "tau-airline-task-13-trial-2" })).toBe("tau-airline-task-13-trial-2");
    expect(sourceId({ ...hi, externalId: "run-7" })).toBe("run-7");
    // No id, or the label is the id already: nothing to add.
    expect(sourceId({ ...hi, externalId: null })).toBeNull();
    expect(sourceId({ ...base, externalId: "task-17" })).toBeNull();
  });

  it("says when each started, to the second, and its source's id", () => {
    const runs = [0, 1, 2].map((i) => ({
      ...hi,
      format: "openai-agents",
      externalId: `trace_${i}a${i}b${i}c${i}d0000000000`,
      startedAt: new Date(Date.UTC(2026, 2, 1, 9, 30, i)),
    }));
    expect(runs.map(sessionLabel)).toEqual([hi.title, hi.title, hi.title]);
    expect(runs.map(sessionDistinction)).toEqual([
      "started 2026-03-01 09:30:00 UTC · trace 0a0b0c0d",
      "started 2026-03-01 09:30:01 UTC · trace 1a1b1c1d",
      "started 2026-03-01 09:30:02 UTC · trace 2a2b2c2d",
    ]);
    expect(sessionDistinction({ ...hi, startedAt: null, externalId: null })).toBe("");
  });
});
