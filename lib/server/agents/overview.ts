/**
 * An agent's overview over time: runs, failures, cost, latency p50/p95 and tokens per UTC day and agent version,
 * for a range of days (`from` and `to` both included; the last 30 days unless asked).
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { agentOverviewRows, agentVersionNames, type OverviewRow } from "@/lib/db/agent-overview";
import { findAgent } from "@/lib/db/clusters";
import { notFound } from "@/lib/errors";
import { hasLoneSurrogate } from "@/lib/hostile/text";
import { authorize } from "../authz";
import type { Principal } from "../principal";

export const DEFAULT_DAYS = 30;
export const MAX_DAYS = 366;
const DAY_MS = 86_400_000;

/** A calendar day written YYYY-MM-DD (UTC): one message whichever way it is wrong. */
const Day = (name: string) =>
  z.string().superRefine((v, ctx) => {
    const d = new Date(`${v}T00:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(+d) || d.toISOString().slice(0, 10) !== v)
      ctx.addIssue({ code: "custom", message: `${name} must be a day of the calendar written YYYY-MM-DD (UTC).` });
  });

const blank = (v: unknown) => (v === "" ? undefined : v);

/** The overview's query: empty parameters (as a form sends them) count as not given. */
export const OverviewQuery = z
  .object({
    from: z.preprocess(blank, Day("from").optional()),
    to: z.preprocess(blank, Day("to").optional()),
    version: z.preprocess(
      blank,
      z
        .string()
        .max(200, "version is at most 200 characters.")
        .refine((v) => !hasLoneSurrogate(v), "version holds a broken character (a lone surrogate).")
        .optional(),
    ),
  })
  .superRefine((q, ctx) => {
    const { from, to } = dayRange(q);
    if (+to < +from) ctx.addIssue({ code: "custom", path: ["to"], message: "to must be on or after from." });
    else if ((+to - +from) / DAY_MS + 1 > MAX_DAYS)
      ctx.addIssue({ code: "custom", path: ["from"], message: `The range is at most ${MAX_DAYS} days.` });
  });
export type OverviewQuery = z.infer<typeof OverviewQuery>;

/** The first and last day of the range as midnights UTC: `to` defaults to today, `from` to 29 days before `to`. */
export function dayRange(q: { from?: string; to?: string }, now = new Date()): { from: Date; to: Date } {
  const to = q.to
    ? new Date(`${q.to}T00:00:00Z`)
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const from = q.from ? new Date(`${q.from}T00:00:00Z`) : new Date(+to - (DEFAULT_DAYS - 1) * DAY_MS);
  return { from, to };
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

export type AgentOverview = {
  agent: { id: string; name: string };
  from: string;
  to: string;
  version: string | null;
  versions: string[];
  days: OverviewRow[];
};

export async function getAgentOverview(
  principal: Principal,
  input: { agentId: string } & OverviewQuery,
  prisma: Db,
  now = new Date(),
): Promise<AgentOverview> {
  authorize(principal, "sessions.read");
  const agent = input.agentId.length > 64 ? null : await findAgent(prisma, { agentId: input.agentId });
  if (!agent) throw notFound("agent", input.agentId, "id");
  const { from, to } = dayRange(input, now);
  const [days, versions] = await Promise.all([
    agentOverviewRows(prisma, { agentId: agent.id, from, to: new Date(+to + DAY_MS), version: input.version }),
    agentVersionNames(prisma, agent.id),
  ]);
  return { agent, from: isoDay(from), to: isoDay(to), version: input.version ?? null, versions, days };
}
