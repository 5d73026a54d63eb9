// eslint-disable-next-line no-restricted-imports -- this test reads lib/replay's own sources to check the purity boundary; tests may do I/O.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { cacheKey } from "./canonical";
import { toolLevelPreset, type Policy, type ToolLevel } from "./policy";
import type { ReplayResult } from "./replay";
import type { ToolExecutor } from "./tool-call";
import { requestEdit, modelSeqs, run, sessionOf, toolSteps } from "./testing";

/** The policy-levels tool levels, each run through the engine on a branch that diverges. */
const base = sessionOf(
  [{ name: "search", args: { q: "refund" }, result: ["r1"] }],
  [{ name: "refund_payment", args: { order_id: "4821" }, result: "refunded" }],
);
const diverged = { edits: [{ seq: 2, op: "replace_tool_args" as const, value: { q: "other" } }] };
const knownTools = [
  { name: "search", sideEffect: "read" as const },
  { name: "refund_payment", sideEffect: "external_mutation" as const },
];
const policyAt = (level: ToolLevel): Policy => ({
  model: "recorded-only",
  drift: "continue_to_terminal",
  maxSteps: 100,
  tools: toolLevelPreset(level, { knownTools }),
});

type Row = [rule: string, level: ToolLevel, check: (r: ReplayResult, tool: ReturnType<typeof vi.fn>) => void];
const rows: Row[] = [
  [
    "recorded-only: only use captured tool outputs (a changed call stops the branch)",
    "recorded-only",
    (r) => {
      expect(r.status).toBe("failed");
      expect(r.stop?.miss?.closest[0]?.differingPaths).toEqual([["q"]]);
    },
  ],
  [
    "pause-for-fixture: pause when a divergent output is missing",
    "pause-for-fixture",
    (r) => {
      expect(r.status).toBe("paused");
      expect(r.pending?.prefill?.output).toEqual(["r1"]);
    },
  ],
  [
    "analyst-fixture: allow analyst-supplied outputs (none yet: pause for one)",
    "analyst-fixture",
    (r) => {
      expect(r.status).toBe("paused");
      expect(r.pending?.miss?.reason).toBe("no_fixture");
    },
  ],
  [
    "live-readonly: allow live read-only tools (with an explicit executor); others still pause",
    "live-readonly",
    (r, tool) => {
      expect(toolSteps(r)[0]).toMatchObject({ source: "live" });
      expect(tool).toHaveBeenCalledTimes(1);
      expect(r.status).toBe("completed");
    },
  ],
  [
    "live-explicit: live side-effecting tools only with explicit approval",
    "live-explicit",
    (r, tool) => {
      expect(r.status).toBe("awaiting_approval");
      expect(tool).not.toHaveBeenCalled();
    },
  ],
  [
    "blocked: block tools (a negative control)",
    "blocked",
    (r, tool) => {
      expect(toolSteps(r).every((s) => s.source === "blocked" && s.status === "failed")).toBe(true);
      expect(tool).not.toHaveBeenCalled();
    },
  ],
];

describe("tool levels", () => {
  it.each(rows)("%s", async (_rule, level, check) => {
    const tool = vi.fn<ToolExecutor>(async () => ({ output: "LIVE" }));
    const r = await run(base, policyAt(level), { ...diverged, tools: knownTools, executors: { tool } });
    check(r, tool);
  });

  it("simulated: allow simulator outputs, for declared simulators only", async () => {
    const without = await run(base, policyAt("simulated"), diverged);
    expect(without.stop?.code).toBe("simulator_missing");
    const simulator = vi.fn(async () => ({ output: "SIM" }));
    const r = await run(base, policyAt("simulated"), { ...diverged, executors: { simulator } });
    expect(toolSteps(r).map((s) => s.source)).toEqual(["llm", "llm"]);
  });

  it("analyst-fixture: keep provenance and author visible", async () => {
    const fixture = {
      type: "fixture" as const,
      id: "f",
      at: "2026-02-01T10:00:00Z",
      step: 2,
      tool: "search",
      cacheKey: cacheKey("search", { q: "other" }),
      output: ["f1"],
      author: "ana",
      note: "from the prod log",
    };
    const other = {
      ...fixture,
      id: "g",
      step: 4,
      tool: "refund_payment",
      cacheKey: cacheKey("refund_payment", { order_id: "4821" }),
      output: "ok",
      note: "assumed",
    };
    const r = await run(base, policyAt("analyst-fixture"), { ...diverged, log: [fixture, other] });
    expect(r.status).toBe("completed");
    expect(r.evidence.fixturesUsed).toEqual([
      { step: 2, tool: "search", fixtureId: "f", author: "ana", note: "from the prod log", at: "2026-02-01T10:00:00Z" },
      { step: 4, tool: "refund_payment", fixtureId: "g", author: "ana", note: "assumed", at: "2026-02-01T10:00:00Z" },
    ]);
  });
});

describe("drift: every divergence is handled, not only the first", () => {
  it("continue_to_terminal keeps every changed step and the branch still finishes", async () => {
    const b = sessionOf(
      [{ name: "a", args: { n: 1 }, result: 1 }],
      [{ name: "b", args: { n: 2 }, result: 2 }],
      [{ name: "c", args: { n: 3 }, result: 3 }],
    );
    const r = await run(
      b,
      {
        ...policyAt("pause-for-fixture"),
        tools: { default: { type: "history", scope: "baseline", on_miss: "error_result" } },
      },
      {
        edits: [
          { seq: 2, op: "replace_tool_result", value: "x" },
          requestEdit(b, modelSeqs(b)[2]!, [{ id: "z", name: "zz", args: {} }]),
        ],
      },
    );
    expect(r.status).toBe("completed");
    expect(r.steps.filter((s) => !s.equalsBase).map((s) => s.name)).toEqual(expect.arrayContaining(["a", "zz"]));
  });
});

describe("architecture: lib/replay is a pure library", () => {
  it("imports nothing from next, react, Prisma, app/, components/ or lib/db, and no Node I/O outside tests", () => {
    const dir = import.meta.dirname;
    const offenders: string[] = [];
    for (const file of readdirSync(dir)) {
      if (!file.endsWith(".ts")) continue;
      const source = readFileSync(path.join(dir, file), "utf8");
      for (const match of source.matchAll(/^\s*(?:import|export)[^;]*?from\s+["']([^"']+)["']/gm)) {
        const spec = match[1]!;
        const forbidden =
          /^(next|react|react-dom)(\/|$)/.test(spec) ||
          spec.startsWith("@prisma/") ||
          /^@\/(app|components|lib\/db)(\/|$)/.test(spec) ||
          /(^|\/)(app|components)\//.test(spec) ||
          spec.includes("lib/db") ||
          (!file.endsWith(".test.ts") && /^(node:)?(fs|path|http|https|net|child_process)$/.test(spec));
        if (forbidden) offenders.push(`${file}: ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
