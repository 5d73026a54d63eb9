import { sessionDistinction, sessionLabel } from "@/lib/session-list/labels";
import type { DbClient } from "./client";
import { sessionNameSelect } from "./session-reads";

/** One thing the command palette can go to. */
export interface SearchHit {
  kind: "session" | "policy" | "replay" | "experiment" | "report";
  id: string;
  label: string;
  detail: string;
  href: string;
}

/**
 * Finds sessions, policies, replays, experiments and reports whose name (or id)
 * contains `q`, newest first, at most `limit` of each kind. Read-only; each
 * query is one indexed-or-bounded lookup, so the cost does not grow with how
 * much else is stored beyond what the LIKE scan reads.
 */
export async function searchByName(client: DbClient, q: string, limit = 5): Promise<SearchHit[]> {
  const raw = q.trim();
  // Prisma passes `contains`/`startsWith` to LIKE as they are: escape its wildcards so "%" means a percent sign.
  const text = raw.replace(/[\\%_]/g, "\\$&");
  const contains = { contains: text, mode: "insensitive" as const };
  const recent = { createdAt: "desc" as const };
  const [sessions, policies, replays, experiments, reports] = await Promise.all([
    client.session.findMany({
      where: text ? { OR: [{ title: contains }, { id: { startsWith: text } }, { agent: { name: contains } }] } : {},
      select: sessionNameSelect,
      orderBy: recent,
      take: limit,
    }),
    client.policy.findMany({
      where: text ? { name: contains } : {},
      select: { id: true, name: true, latestVersion: true },
      orderBy: recent,
      take: limit,
    }),
    client.replay.findMany({
      where: text
        ? {
            OR: [
              { id: { startsWith: text } },
              { policyVersion: { policy: { name: contains } } },
              { session: { title: contains } },
            ],
          }
        : {},
      select: {
        id: true,
        status: true,
        session: { select: { title: true } },
        policyVersion: { select: { version: true, policy: { select: { name: true } } } },
      },
      orderBy: recent,
      take: limit,
    }),
    client.experiment.findMany({
      where: text ? { name: contains } : {},
      select: { id: true, name: true, status: true },
      orderBy: recent,
      take: limit,
    }),
    client.report.findMany({
      where: text ? { title: contains } : {},
      select: { id: true, title: true },
      orderBy: recent,
      take: limit,
    }),
  ]);
  return [
    ...sessions.map((s) => ({
      kind: "session" as const,
      id: s.id,
      label: sessionLabel(s),
      // Runs of one prompt share a title: when each started and its source's id tell them apart.
      detail: [s.agent.name, sessionDistinction(s)].filter(Boolean).join(" · "),
      href: `/sessions/${s.id}`,
    })),
    ...policies.map((p) => ({
      kind: "policy" as const,
      id: p.id,
      label: p.name,
      detail: `v${p.latestVersion}`,
      href: `/policies/${p.id}`,
    })),
    ...replays.map((r) => ({
      kind: "replay" as const,
      id: r.id,
      label: r.policyVersion
        ? `${r.policyVersion.policy.name} v${r.policyVersion.version}`
        : `Replay ${r.id.slice(0, 8)}`,
      detail: `${r.session.title ?? "untitled session"} · ${r.status.replaceAll("_", " ")}`,
      href: `/replays/${r.id}`,
    })),
    ...experiments.map((e) => ({
      kind: "experiment" as const,
      id: e.id,
      label: e.name,
      detail: e.status,
      href: `/experiments/${e.id}`,
    })),
    ...reports.map((r) => ({
      kind: "report" as const,
      id: r.id,
      label: r.title,
      detail: "report",
      href: `/reports/${r.id}`,
    })),
  ];
}
