import { route } from "@/lib/http/route";
import { listConnectorPulls, startPull, StartPullInput } from "@/lib/server/connectors/connectors";

export const dynamic = "force-dynamic";

/**
 * POST /api/v1/connectors/:id/pulls: `{ filter: { fromTimestamp?, toTimestamp?, tags?, name?, userId?, sessionId?,
 * error?, query?, environment?, version?, release?, score?, traceIds? } }` (the fields the connector's kind reads;
 * another is a 400; `traceIds`, up to 500, pulls those traces and takes no other field but `error`; Langfuse's
 * `error` and `score: { name, op: "=" | "!=" | ">" | ">=" | "<" | "<=", value }` are checked on each trace read,
 * its list having no such parameters) → `201 { "pull": { id, status, progress, … } }`. A worker runs it (a job); poll `GET …/pulls/:pullId`.
 * With `schedule: { everyMinutes }` (5 to 10080) the pull repeats: when it is due and this one has ended, the
 * queue's sweep starts the next, reading the traces since this one's window ended; cancel a pull to stop it.
 */
export const POST = route<{ id: string }, undefined, typeof StartPullInput>(
  { accept: ["api_key"], body: StartPullInput },
  async ({ body, params, prisma, principal }) =>
    Response.json({ pull: await startPull(principal, { connectorId: params.id, ...body }, prisma) }, { status: 201 }),
);

/** GET /api/v1/connectors/:id/pulls: the connector's latest pulls, newest first: `{ "pulls": [...] }`. */
export const GET = route<{ id: string }>({ accept: ["api_key"] }, async ({ params, prisma, principal }) =>
  Response.json({ pulls: await listConnectorPulls(principal, { connectorId: params.id }, prisma) }),
);
