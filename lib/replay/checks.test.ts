import { describe, expect, it } from "vitest";
import {
  CheckDefinition,
  evaluateCheck,
  finalOutputOf,
  parseJsonPath,
  verdictChange,
  type CheckDefinition as Def,
  type CheckedRun,
  type JudgeExecutor,
} from "./checks";
import type { SessionEvent } from "./events";

type Step = CheckedRun["steps"][number];
const model = (
  content: unknown,
  toolCalls?: { id: string; name: string; args: unknown }[],
  costUsd?: number,
): Step => ({
  kind: "model_call",
  name: "gpt-4o",
  input: { messages: [] },
  output: { role: "assistant", content, ...(toolCalls ? { toolCalls } : {}) },
  usage: costUsd === undefined ? null : { costUsd },
});
const tool = (name: string, args: unknown, output: unknown = "ok"): Step => ({
  kind: "tool_call",
  name,
  input: { callId: "c", args },
  output,
  usage: null,
});
const final = (output: unknown): Step => ({ kind: "final_output", name: "final", input: null, output, usage: null });

const refundRun: CheckedRun = {
  steps: [
    model(null, [{ id: "c1", name: "refund_payment", args: { order_id: "4821", amount: 129 } }], 0.002),
    tool("refund_payment", { order_id: "4821", amount: 129 }, "refund issued"),
    model('{"status": "refunded", "items": [{"id": 7}]}', undefined, 0.003),
    final('{"status": "refunded", "items": [{"id": 7}]}'),
  ],
};

const check = (definition: Def) => ({ name: "c", definition: CheckDefinition.parse(definition) });
const outcome = async (definition: Def, run: CheckedRun = refundRun, judge?: JudgeExecutor) =>
  (await evaluateCheck(check(definition), run, judge)).outcome;

describe("outcome checks: each kind passes and fails on purpose", () => {
  it.each<[string, Def, Def]>([
    [
      "output_contains",
      { kind: "output_contains", text: "REFUNDED" },
      { kind: "output_contains", text: "REFUNDED", caseSensitive: true },
    ],
    [
      "output_regex",
      { kind: "output_regex", pattern: '"status":\\s*"refund' },
      { kind: "output_regex", pattern: "^denied" },
    ],
    [
      "output_json_path",
      { kind: "output_json_path", path: "$.items[0].id", equals: 7 },
      { kind: "output_json_path", path: "$.items[0].id", equals: "7" },
    ],
    [
      "tool_called",
      { kind: "tool_called", tool: "refund_payment", args: { order_id: "4821" } },
      { kind: "tool_called", tool: "refund_payment", args: { order_id: "9999" } },
    ],
    [
      "tool_not_called",
      { kind: "tool_not_called", tool: "cancel_order" },
      { kind: "tool_not_called", tool: "refund_payment" },
    ],
    ["max_steps", { kind: "max_steps", max: 3 }, { kind: "max_steps", max: 2 }],
    ["max_cost", { kind: "max_cost", maxUsd: 0.005 }, { kind: "max_cost", maxUsd: 0.004 }],
  ])("%s", async (_kind, passing, failing) => {
    expect(await outcome(passing)).toBe("pass");
    expect(await outcome(failing)).toBe("fail");
  });

  it("a JSON path into an output that is not JSON fails, and says so", async () => {
    const v = await evaluateCheck(check({ kind: "output_json_path", path: "a", equals: 1 }), { steps: [final("hi")] });
    expect(v).toMatchObject({ outcome: "fail", reason: "The final output is not JSON." });
  });

  it("output checks fail on a run that produced no final output", async () => {
    const run = { steps: [model(null, [{ id: "c", name: "t", args: {} }])] };
    const v = await evaluateCheck(check({ kind: "output_contains", text: "x" }), run);
    expect(v).toMatchObject({ outcome: "fail", reason: "The run produced no final output." });
  });

  it("tool_called names the other arguments it saw", async () => {
    const v = await evaluateCheck(
      check({ kind: "tool_called", tool: "refund_payment", args: { order_id: "1" } }),
      refundRun,
    );
    expect(v.reason).toBe(
      '"refund_payment" with arguments holding {"order_id":"1"} was not called ("refund_payment" was called once with other arguments).',
    );
  });

  it("the final output is the last final_output, else the last reply without tool calls", () => {
    expect(finalOutputOf(refundRun.steps)).toBe('{"status": "refunded", "items": [{"id": 7}]}');
    expect(finalOutputOf([model("just text")])).toBe("just text");
    expect(finalOutputOf([model(null, [{ id: "c", name: "t", args: {} }])])).toBeUndefined();
  });
});

describe("regex checks run in linear time", () => {
  it("a pattern that backtracks catastrophically elsewhere answers at once on a crafted output", async () => {
    const crafted: CheckedRun = { ...refundRun, steps: [final(`${"a".repeat(50_000)}!`)] };
    expect(await outcome({ kind: "output_regex", pattern: "^(a+)+$" }, crafted)).toBe("fail");
    expect(await outcome({ kind: "output_regex", pattern: "^(a+)+!$" }, crafted)).toBe("pass");
  });

  it("flags i, m and s mean what they mean in JavaScript", async () => {
    const run: CheckedRun = { ...refundRun, steps: [final("Line one\nSTATUS: ok")] };
    expect(await outcome({ kind: "output_regex", pattern: "status: ok" }, run)).toBe("fail");
    expect(await outcome({ kind: "output_regex", pattern: "status: ok", flags: "i" }, run)).toBe("pass");
    expect(await outcome({ kind: "output_regex", pattern: "^STATUS" }, run)).toBe("fail");
    expect(await outcome({ kind: "output_regex", pattern: "^STATUS", flags: "m" }, run)).toBe("pass");
    expect(await outcome({ kind: "output_regex", pattern: "one.STATUS" }, run)).toBe("fail");
    expect(await outcome({ kind: "output_regex", pattern: "one.STATUS", flags: "s" }, run)).toBe("pass");
  });

  it.each(["(?=a)b", "(a)\\1", "(?<!x)y"])("%s is refused when saved, saying why", (pattern) => {
    const parsed = CheckDefinition.safeParse({ kind: "output_regex", pattern });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(
      /^Not a valid regular expression: .*\(lookarounds and backreferences are not supported: patterns run in linear time\)$/,
    );
  });
});

describe("check definitions are validated", () => {
  it.each<[unknown, string]>([
    [{ kind: "output_regex", pattern: "(" }, "Not a valid regular expression"],
    [{ kind: "output_regex", pattern: "a", flags: "g" }, "Flags may only be i, m, s and u."],
    [{ kind: "output_json_path", path: "$..a", equals: 1 }, "Write a path like $.order.status"],
    [{ kind: "output_json_path", path: "$.a" }, "equals is required"],
    [{ kind: "max_steps", max: -1 }, "Too small"],
    [{ kind: "nope" }, "Invalid discriminator value"],
    [{ kind: "output_contains", text: "a", extra: 1 }, 'Unrecognized key: "extra"'],
  ])("%j", (definition, message) => {
    const parsed = CheckDefinition.safeParse(definition);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.message).join(" | ")).toContain(message);
  });

  it("JSON paths", () => {
    expect(parseJsonPath("$.a.b[0]")).toEqual(["a", "b", 0]);
    expect(parseJsonPath("a.b.0")).toEqual(["a", "b", 0]);
    expect(parseJsonPath('$["a b"].c')).toEqual(["a b", "c"]);
    expect(parseJsonPath("$")).toEqual([]);
    expect(parseJsonPath("a..b")).toBeNull();
  });
});

describe("LLM judge", () => {
  const judgeAnswering =
    (content: string | null): JudgeExecutor =>
    async () => ({ content, model: "judge-1" });

  it("passes and fails on the judge's verdict, keeping its prompt and answer", async () => {
    const seen: unknown[] = [];
    const judge: JudgeExecutor = async (request) => {
      seen.push(request);
      return { content: '```json\n{"verdict": "pass", "reason": "The refund was issued."}\n```', model: "judge-1" };
    };
    const v = await evaluateCheck(check({ kind: "llm_judge", rubric: "Was the customer refunded?" }), refundRun, judge);
    expect(v.outcome).toBe("pass");
    expect(v.reason).toBe("The refund was issued.");
    expect(v.judge?.answer).toContain('"verdict": "pass"');
    expect(v.judge?.model).toBe("judge-1");
    expect(v.judge?.prompt[1]?.content).toContain("Was the customer refunded?");
    expect(v.judge?.prompt[1]?.content).toContain("refund_payment");
    expect(seen).toHaveLength(1);

    const failed = await evaluateCheck(
      check({ kind: "llm_judge", rubric: "r" }),
      refundRun,
      judgeAnswering('{"verdict":"fail","reason":"no"}'),
    );
    expect(failed).toMatchObject({ outcome: "fail", reason: "no" });
  });

  it.each<[string | null, string]>([
    ["Sure! The agent did great.", "not the JSON object asked for"],
    ['{"verdict": "maybe"}', 'has no "verdict" of "pass" or "fail"'],
    ["", "empty answer"],
    [null, "empty answer"],
  ])("garbage %j is a check_error, not a pass", async (content, message) => {
    const v = await evaluateCheck(check({ kind: "llm_judge", rubric: "r" }), refundRun, judgeAnswering(content));
    expect(v.outcome).toBe("check_error");
    expect(v.reason).toContain(message);
    expect(v.judge?.answer).toBe(content);
  });

  it("a judge that cannot be reached, or none configured, is a check_error", async () => {
    const throwing: JudgeExecutor = async () => {
      throw new Error("HTTP 500");
    };
    expect(await evaluateCheck(check({ kind: "llm_judge", rubric: "r" }), refundRun, throwing)).toMatchObject({
      outcome: "check_error",
      reason: "The judge's model could not answer: HTTP 500",
    });
    expect(await outcome({ kind: "llm_judge", rubric: "r" })).toBe("check_error");
  });
});

it("verdict changes read as words", () => {
  expect(verdictChange("fail", "pass")).toBe("base failed → branch passed");
  expect(verdictChange("pass", "check_error")).toBe("base passed → branch could not be checked");
});

// The check reads session events as they are stored.
it("checks read stored session events", async () => {
  const events: SessionEvent[] = refundRun.steps.map((s, seq) => ({
    ...s,
    seq,
    error: null,
    status: "completed",
    startedAt: null,
    durationMs: null,
    usage: s.usage ?? null,
    parentSeq: null,
    cacheKey: null,
    occurrence: null,
  }));
  expect(await outcome({ kind: "output_contains", text: "refunded" }, { steps: events })).toBe("pass");
});
