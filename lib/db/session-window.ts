import type { DbClient } from "./client";
import { withTraceIdsOf } from "./session-traces";

// ---------------------------------------------------------------------------
// Long sessions read a window at a time. A window is a range of seqs
// [from, to); it holds the events in that range, in their stored form (a model
// call's input is only the messages it adds), except that a tool call belongs
// with the model call that asked for it: a tool call "attached" to its model
// call (fewer than ATTACH steps after it) is read in its model call's window,
// even when its own seq is past the window's end. The rule depends only on
// the two seqs, so any cut of a session into windows gives every event
// exactly once. Each read costs the window, never the session.
// ---------------------------------------------------------------------------

/** How far after its model call a tool call may be and still be read with it. */
export const ATTACH = 256;

/**
 * The session without its events, and the seqs its events span (null when it has none). `metadata: "stored"`:
 * its metadata as stored, for a read that does not show it (a window of steps, a search), which then costs
 * nothing per trace of the session; else as the reader sees it, its trace ids put back (./session-traces.ts).
 */
export async function sessionOverview(client: DbClient, id: string, opts: { metadata?: "shown" | "stored" } = {}) {
  const row = await client.session.findUnique({ where: { id }, include: { agent: true, agentVersion: true } });
  const session = opts.metadata === "stored" ? row : await withTraceIdsOf(client, row);
  if (!session) return null;
  // Two ends of the (sessionId, seq) index; an aggregate would read every row of the session.
  const [first, last] = await Promise.all([
    client.event.findFirst({ where: { sessionId: id }, orderBy: { seq: "asc" }, select: { seq: true } }),
    client.event.findFirst({ where: { sessionId: id }, orderBy: { seq: "desc" }, select: { seq: true } }),
  ]);
  return { ...session, firstSeq: first?.seq ?? null, lastSeq: last?.seq ?? null };
}
export type SessionOverview = NonNullable<Awaited<ReturnType<typeof sessionOverview>>>;

type Row = Awaited<ReturnType<DbClient["event"]["findMany"]>>[number];

const attached = (child: { seq: number }, parentSeq: number) => child.seq > parentSeq && child.seq - parentSeq < ATTACH;

/**
 * The events of one window in seq order (stored form), with the outputs of the
 * earlier model calls that its model calls extend (`before`) and the steps
 * just before it (`lead`: from the last model call before the window), so
 * that a window can be read as a stretch of the conversation on its own.
 */
export async function eventWindow(client: DbClient, sessionId: string, from: number, to: number) {
  // Every read is by seq range on the (sessionId, seq) index, bounded by the window and ATTACH: filtering
  // by kind in the database would walk the session's index of that kind, which grows with the session.
  const [inRange, next, prior] = await Promise.all([
    client.event.findMany({ where: { sessionId, seq: { gte: from, lt: to } }, orderBy: { seq: "asc" } }),
    client.event.findMany({
      where: { sessionId, seq: { gte: to, lt: to + ATTACH - 1 } },
      select: { seq: true, kind: true, parentSeq: true },
      orderBy: { seq: "asc" },
    }),
    client.event.findMany({
      where: { sessionId, seq: { gte: from - ATTACH, lt: from } },
      select: { seq: true, kind: true },
      orderBy: { seq: "asc" },
    }),
  ]);
  const inWindow = (seq: number | null) => seq !== null && seq >= from && seq < to;
  const afterSeqs = next.filter((e) => e.kind === "tool_call" && inWindow(e.parentSeq)).map((e) => e.seq);
  const lastModelCall = prior.filter((e) => e.kind === "model_call").at(-1) ?? null;
  const [after, lead] = await Promise.all([
    afterSeqs.length === 0
      ? []
      : client.event.findMany({ where: { sessionId, seq: { in: afterSeqs } }, orderBy: { seq: "asc" } }),
    // The lead: the steps since the last model call before the window (at most ATTACH of them), which a
    // reader of the conversation goes through first to know what was already said.
    lastModelCall
      ? client.event.findMany({
          where: { sessionId, seq: { gte: lastModelCall.seq, lt: from } },
          orderBy: { seq: "asc" },
        })
      : [],
  ]);
  const modelSeqs = new Set(inRange.filter((e) => e.kind === "model_call").map((e) => e.seq));
  // Earlier steps this window refers to: the parents of its first tool calls, the prefixes of its model calls.
  const earlier = new Set<number>();
  for (const e of inRange) {
    if (e.kind === "tool_call" && e.parentSeq !== null && e.parentSeq < from && attached(e, e.parentSeq))
      earlier.add(e.parentSeq);
    if (e.inputPrefixSeq !== null && e.inputPrefixSeq < from) earlier.add(e.inputPrefixSeq);
  }
  const before =
    earlier.size === 0
      ? []
      : await client.event.findMany({
          where: { sessionId, seq: { in: [...earlier] } },
          select: { seq: true, kind: true, output: true },
        });
  const earlierModelCalls = new Set(before.filter((b) => b.kind === "model_call").map((b) => b.seq));
  const owned = inRange.filter(
    (e) =>
      !(
        e.kind === "tool_call" &&
        e.parentSeq !== null &&
        e.parentSeq < from &&
        earlierModelCalls.has(e.parentSeq) &&
        attached(e, e.parentSeq)
      ),
  );
  const children = after.filter((e) => e.parentSeq !== null && modelSeqs.has(e.parentSeq) && attached(e, e.parentSeq));
  const events: Row[] = children.length === 0 ? owned : [...owned, ...children];
  return {
    events,
    lead,
    before: new Map(before.filter((b) => b.kind === "model_call").map((b) => [b.seq, b.output as unknown])),
  };
}
export type EventWindow = Awaited<ReturnType<typeof eventWindow>>;
