/**
 * A generated cohort of native sessions with known failure classes, for the cluster and regression tests
 * and the bench: each class fails at one step with one error template whose ids, amounts, timestamps,
 * paths and quoted wording vary per session; noise sessions pass, or fail a tool call and recover. Seeded,
 * so a run is reproducible. Never used by the app.
 */

/** A small seeded generator (mulberry32). */
export function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]!;
  const word = () => pick(["cracked", "missing", "late", "wrong size", "double charged", "never arrived", "torn box"]);
  const alnum = (n: number) => Array.from({ length: n }, () => pick([..."abcdefghjkmnpqrstuvwxyz0123456789"])).join("");
  return { next, int, pick, word, alnum };
}
type Rng = ReturnType<typeof seeded>;

/** A failing step: which tool (or the model), the error it raised, and whether the run still answered. */
type Failure = { tool: string | null; type: string; message: string; answered: boolean };

/** The failure classes: each a fixed step and error type with a message template of varying values. */
export const FAILURE_CLASSES = {
  declined: (r) => ({
    tool: "refund_payment",
    type: "PaymentDeclined",
    message: `Card ending ${r.int(1000, 9999)} declined for $${r.int(1, 2000)}.${String(r.int(0, 99)).padStart(2, "0")} on order ord_${r.int(1000, 99999)}`,
    answered: false,
  }),
  not_found: (r) => ({
    tool: "lookup_order",
    type: "NotFound",
    message: `Order '${r.int(100, 999999)}' not found (customer said "${r.word()}")`,
    answered: true,
  }),
  rate_limit: (r) => ({
    tool: null,
    type: "RateLimitError",
    message: `Rate limit reached for organization org-${r.alnum(11)}${r.int(0, 9)} on tokens per min: Limit 30000, Used ${r.int(20000, 30000)}, Requested ${r.int(100, 9000)}. Please try again in ${r.int(1, 60)}.${r.int(0, 9)}s.`,
    answered: false,
  }),
  timeout: (r) => ({
    tool: "get_current_time",
    type: "Timeout",
    message: `GET https://time.example.com/api/${r.pick(["utc", "cet", "pst"])}?ts=${r.int(1e9, 2e9)} timed out after ${r.int(1000, 30000)}ms at ${new Date(Date.UTC(2025, 0, 1) + r.int(0, 3e10)).toISOString()}`,
    answered: false,
  }),
  missing_file: (r) => ({
    tool: "read_file",
    type: "FileNotFoundError",
    message: `[Errno 2] No such file or directory: /tmp/run-${crypto.randomUUID()}/out-${r.int(1, 99)}.json`,
    answered: true,
  }),
} satisfies Record<string, (r: Rng) => Failure>;
export type FailureClass = keyof typeof FAILURE_CLASSES;

export type CohortSession = {
  externalId: string;
  version: string;
  cls: FailureClass | "passed" | "recovered";
  doc: object;
};

const TOOLS = ["lookup_order", "refund_payment", "get_current_time", "read_file"];

/** One native session document: a model call, a tool call (failing or not), and an answer unless the failure stopped it. */
function session(
  r: Rng,
  agent: string,
  version: string,
  externalId: string,
  day: number,
  failure: Failure | null,
  recovered: boolean,
): object {
  const startedAt = new Date(Date.UTC(2025, 2, 1 + day, r.int(0, 23), r.int(0, 59), r.int(0, 59)));
  const at = (s: number) => new Date(startedAt.getTime() + s * 1000).toISOString();
  const model = (seq: number, content: string, error: Failure | null = null) => ({
    seq,
    kind: "model_call",
    name: "gpt-4o-2024-08-06",
    input: { messages: [{ role: "user", content }] },
    output: error
      ? null
      : { role: "assistant", content: null, toolCalls: [{ id: `call_${seq}`, name: tool, args: { n: seq } }] },
    ...(error ? { error: { type: error.type, message: error.message } } : {}),
    startedAt: at(seq),
  });
  const tool = failure?.tool ?? r.pick(TOOLS);
  const call = (seq: number, error: Failure | { type: string; message: string } | null) => ({
    seq,
    kind: "tool_call",
    name: tool,
    parentSeq: seq - 1,
    input: { callId: `call_${seq - 1}`, args: { n: seq - 1 } },
    ...(error ? { error: { type: error.type, message: error.message } } : { output: { ok: true } }),
    startedAt: at(seq),
  });
  const events: object[] = [];
  const ask = `Help with order ${r.int(100, 999999)}, it was ${r.word()}`;
  if (failure && failure.tool === null) {
    events.push(model(0, ask, failure));
  } else {
    events.push(model(0, ask));
    if (failure) {
      events.push(call(1, failure));
      if (failure.answered)
        events.push({
          seq: 2,
          kind: "final_output",
          name: "final_output",
          output: "Sorry, I could not help.",
          startedAt: at(2),
        });
    } else if (recovered) {
      events.push(call(1, { type: "Transient", message: `connection reset by peer after ${r.int(1, 500)}ms` }));
      events.push(model(2, "try again"));
      events.push(call(3, null));
      events.push({ seq: 4, kind: "final_output", name: "final_output", output: "Done.", startedAt: at(4) });
    } else {
      events.push(call(1, null));
      events.push({ seq: 2, kind: "final_output", name: "final_output", output: "Done.", startedAt: at(2) });
    }
  }
  return {
    externalId,
    title: ask,
    agent: { name: agent, adapter: "generic" },
    agentVersion: { version, capabilities: ["overrides", "tool_policies"] },
    startedAt: startedAt.toISOString(),
    events,
  };
}

/**
 * `count` sessions of `agent`, spread over `days` days, in versions with their own failure mix:
 * `mix[version]` gives each class's share (the rest pass; a fifth of the passing ones recover from a
 * failed call first).
 */
export function cohort(opts: {
  agent: string;
  seed: number;
  perVersion: Record<string, { count: number; mix: Partial<Record<FailureClass, number>> }>;
  days?: number;
}): CohortSession[] {
  const r = seeded(opts.seed);
  const out: CohortSession[] = [];
  const days = opts.days ?? 14;
  // Each version runs in its own stretch of days, after the one before (as releases do).
  for (const [k, [version, { count, mix }]] of Object.entries(opts.perVersion).entries()) {
    // Exact counts per class (shares of count), then shuffled: a version's rates are what the test says.
    const plan: (FailureClass | "passed")[] = [];
    for (const [cls, share] of Object.entries(mix) as [FailureClass, number][])
      for (let i = 0; i < Math.round(share * count); i++) plan.push(cls);
    while (plan.length < count) plan.push("passed");
    for (let i = plan.length - 1; i > 0; i--) {
      const j = r.int(0, i);
      [plan[i], plan[j]] = [plan[j]!, plan[i]!];
    }
    for (const [i, cls] of plan.entries()) {
      const externalId = `${opts.agent}:${version}:${i}`;
      const recovered = cls === "passed" && r.next() < 0.2;
      const failure = cls === "passed" ? null : FAILURE_CLASSES[cls](r);
      out.push({
        externalId,
        version,
        cls: recovered ? "recovered" : cls,
        doc: session(r, opts.agent, version, externalId, k * days + r.int(0, days - 1), failure, recovered),
      });
    }
  }
  return out;
}

/** Sessions as JSON Lines documents of at most `per` sessions each. */
export function jsonlDocuments(sessions: readonly CohortSession[], per = 500): string[] {
  const docs: string[] = [];
  for (let i = 0; i < sessions.length; i += per)
    docs.push(
      sessions
        .slice(i, i + per)
        .map((s) => JSON.stringify(s.doc))
        .join("\n"),
    );
  return docs;
}
