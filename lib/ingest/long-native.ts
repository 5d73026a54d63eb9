/**
 * A long native session document, generated as text a piece at a time (so a 100 MB one never sits whole in
 * memory): a user turn, then `turns` model calls, each requesting one tool call (two every 7th turn, one of them
 * a refund tool that is not declared), answered by tool calls that sometimes fail; a user turn every 25th turn;
 * the last model call and the final output. Model calls carry usage (cached tokens, a cost every 10th), times
 * and durations; their input is the conversation since the latest reset (every 4 turns), so inputs share
 * prefixes as a real agent's do without the document growing as the square of its length. `metadata` and
 * `endedAt` come after `events`. `pad` characters are added to each tool result (to reach a file size).
 * Deterministic. Used by the native stream tests and `bench/native.ts`.
 */
export type LongNativeOptions = { pad?: number; seqs?: boolean; externalId?: string };

export function* longNativeParts(turns: number, opts: LongNativeOptions = {}): Generator<string> {
  const pad = "p".repeat(opts.pad ?? 0);
  const withSeq = opts.seqs ?? true;
  let seq = 0;
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 5, 9) + ms).toISOString();
  const event = (fields: Record<string, unknown>) => {
    const text = JSON.stringify(withSeq ? { seq, ...fields } : fields);
    seq++;
    return text;
  };
  yield JSON.stringify({
    ...(opts.externalId !== undefined ? { externalId: opts.externalId } : {}),
    title: `A support run of ${turns} turns`,
    agent: { name: "shop-agent", adapter: "generic" },
    agentVersion: { version: "2.1.0", capabilities: ["tool_policies"] },
    startedAt: at(0),
    tools: [{ name: "lookup", sideEffect: "read", schema: { type: "object" } }],
  }).slice(0, -1);
  const system = { role: "system", content: "You are a support agent. Look orders up before answering." };
  const user = { role: "user", content: `Where are my ${turns} orders?` };
  yield `,"events":[${event({ kind: "user_message", name: "user", output: user.content, startedAt: at(1) })}`;
  let history: unknown[] = [];
  for (let t = 0; t <= turns; t++) {
    if (t % 4 === 0) history = [];
    const last = t === turns;
    const calls = last
      ? []
      : [
          { id: `call_${t}`, name: "lookup", args: { order: `W${1_000_000 + t * 7919}` } },
          ...(t % 7 === 3 ? [{ id: `call_${t}_r`, name: "refund", args: { order: `W${t}`, cents: t * 13 } }] : []),
        ];
    const output = { role: "assistant", content: t % 5 === 0 ? `Checking step ${t}.` : null, toolCalls: calls };
    const modelSeq = seq;
    yield (
      "," +
      event({
        kind: "model_call",
        name: "gpt-4o",
        input: { model: "gpt-4o", temperature: 0.2, messages: [system, user, ...history] },
        output: last ? { role: "assistant", content: `All ${turns} orders are accounted for.` } : output,
        usage: {
          inputTokens: 400 + t,
          cachedInputTokens: t % 2 === 0 ? 256 : 0,
          outputTokens: 30 + (t % 11),
          ...(t % 10 === 0 ? { costUsd: 0.0015 } : {}),
        },
        startedAt: at(10 + t * 1000),
        durationMs: 300 + (t % 17),
      })
    );
    history.push(output);
    for (const [k, call] of calls.entries()) {
      const failed = t % 6 === 5 && k === 0;
      const result = { order: call.args.order, status: ["pending", "delivered"][t % 2], note: `${t}:${k}:${pad}` };
      yield (
        "," +
        event({
          kind: "tool_call",
          name: call.name,
          input: { callId: call.id, args: call.args },
          ...(failed
            ? { output: null, error: { type: "Timeout", message: `lookup ${t} timed out` }, status: "failed" }
            : { output: result }),
          parentSeq: modelSeq,
          startedAt: at(20 + t * 1000 + k),
          durationMs: 40 + k,
        })
      );
      history.push({ role: "tool", toolCallId: call.id, content: failed ? "error: timed out" : result });
    }
    if (t % 25 === 24 && !last) {
      const more = { role: "user", content: `And the one from step ${t}?` };
      yield "," + event({ kind: "user_message", name: "user", output: more.content });
      history.push(more);
    }
  }
  yield "," + event({ kind: "final_output", name: "answer", output: `All ${turns} orders are accounted for.` });
  yield `],"metadata":{"outcome":"success","turns":${turns}},"endedAt":${JSON.stringify(at(10 + (turns + 1) * 1000))}}`;
}

/** The document whole, as text (for small ones). */
export function longNativeText(turns: number, opts: LongNativeOptions = {}): string {
  return [...longNativeParts(turns, opts)].join("");
}
