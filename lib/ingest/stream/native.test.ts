import { describe, expect, it } from "vitest";
import { importDocument } from "..";
import { longNativeText } from "../long-native";
import { NativeStream, nativeStreamHead } from "./native";

/** The streamed check of a parsed document: its events as stored (before call identity), or its issues. */
function streamed(doc: Record<string, unknown>) {
  const { events, ...header } = doc as { events: unknown[] };
  const head = nativeStreamHead(header);
  if (!head.ok) return { issues: head.issues };
  const stream = new NativeStream(head.head);
  const out = events.map((e, i) => stream.push(e, i));
  stream.end();
  return stream.issues.length > 0 ? { issues: stream.issues } : { events: out, tools: stream.tools };
}

/** The whole import's answer for the same document. */
function whole(doc: unknown) {
  const r = importDocument(JSON.stringify(doc), { format: "native" });
  if (!r.ok) return { issues: r.issues };
  const s = r.sessions[0]!;
  return {
    events: s.events.map(({ cacheKey: _k, occurrence: _o, ...e }) => e),
    tools: s.tools,
  };
}

describe("a native session checked one event at a time", () => {
  it("gives the events and tools the whole import gives, seqs given or not", () => {
    for (const seqs of [true, false]) {
      const doc = JSON.parse(longNativeText(30, { seqs })) as Record<string, unknown>;
      const a = streamed(doc);
      expect(a.events).toHaveLength(68);
      expect(a).toEqual(whole(doc));
    }
  });

  it("words the issues as the whole import does: a schema error, the rules between events, seqs on some events", () => {
    const base = () => JSON.parse(longNativeText(8)) as { events: Record<string, unknown>[] };
    const cases: ((doc: { events: Record<string, unknown>[] }) => void)[] = [
      (d) => ((d.events[4]!.input as Record<string, unknown>).callId = 7),
      (d) => (d.events[2]!.name = "refund"),
      (d) => (d.events[3]!.status = "failed"),
      (d) => ((d.events[1]!.usage as Record<string, unknown>).cachedInputTokens = 10_000),
      (d) => ((d.events[1]!.usage as Record<string, unknown>).cacheWriteInputTokens = 10_000),
      (d) => delete d.events[4]!.seq,
      (d) => (d.events[2]!.parentSeq = 2),
      (d) => ((d as Record<string, unknown>).tools = [{ name: "lookup" }, { name: "lookup" }]),
    ];
    for (const change of cases) {
      const doc = base();
      change(doc);
      const a = streamed(doc);
      expect(a.issues?.length).toBeGreaterThan(0);
      expect(a).toEqual(whole(doc));
    }
    // Seqs on some events only, the first without: every event without one is named, those before it too.
    const doc = JSON.parse(longNativeText(8, { seqs: false })) as { events: Record<string, unknown>[] };
    doc.events[3]!.seq = 3;
    expect(streamed(doc).issues).toHaveLength(doc.events.length - 1);
    expect(streamed(doc)).toEqual(whole(doc));
  });
});
