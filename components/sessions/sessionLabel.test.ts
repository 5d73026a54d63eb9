import { describe, expect, it } from "vitest";
import { sessionLabel } from "./SessionTable";

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
