/**
 * Regressions: an agent's pass rate (a session passes unless it failed, see isFailedSession) per version
 * and per day, each with its Wilson 95% interval; a version whose rate fell from the previous version's
 * (in order of first seen) with the intervals apart or a significant two-proportion test is flagged, with
 * the clusters that grew most between the two. The same per online check, from its stored verdicts.
 */
import { clustersThatGrew, passRate, regression, type PassRate, type RegressionVerdict } from "@/lib/clusters/stats";
import type { Db } from "@/lib/db";
import { clustersOfAgentByIds, listClusters, passCounts } from "@/lib/db/clusters";
import { checkPassCounts } from "@/lib/db/online-checks";
import { authorize } from "../authz";
import type { Principal } from "../principal";
import { presentCluster, resolveAgent, type AgentRef } from "./cluster-shared";

export type VersionPassRate = PassRate & {
  agentVersionId: string;
  version: string;
  firstSeen: string;
  /** Against the version before it; null for the first. */
  previous: string | null;
  regression: RegressionVerdict | null;
  /** The clusters whose share of the version's sessions grew most since the previous version. */
  grew: { clusterId: string; label: string; before: number; after: number; growth: number }[];
};

export type DayPassRate = PassRate & { day: string };

/** One online check's pass rate for the agent (its stored pass and fail verdicts), per version and per day. */
export type CheckRegressions = {
  checkId: string;
  name: string;
  versions: (PassRate & {
    agentVersionId: string;
    version: string;
    previous: string | null;
    regression: RegressionVerdict | null;
  })[];
  days: DayPassRate[];
  regressions: string[];
};

/**
 * Per check, from the verdicts online checks stored (a check error or a session not judged counts neither way),
 * versions in order of their first judged session, each against the version before it.
 */
function perCheck(counts: Awaited<ReturnType<typeof checkPassCounts>>): CheckRegressions[] {
  const out = new Map<string, CheckRegressions>();
  for (const r of counts.byVersion) {
    const check = out.get(r.checkId) ?? { checkId: r.checkId, name: r.name, versions: [], days: [], regressions: [] };
    out.set(r.checkId, check);
    const rate = passRate(r.passed, r.passed + r.failed);
    const before = check.versions.at(-1) ?? null;
    const verdict = before ? regression(before, rate) : null;
    check.versions.push({
      ...rate,
      agentVersionId: r.agentVersionId,
      version: r.version,
      previous: before?.version ?? null,
      regression: verdict,
    });
    if (verdict?.flagged) check.regressions.push(r.version);
  }
  for (const d of counts.byDay)
    out.get(d.checkId)?.days.push({ day: d.day, ...passRate(d.passed, d.passed + d.failed) });
  return [...out.values()];
}

/**
 * Each version's pass rate (oldest first) against the version before it, with the clusters that grew most since
 * it, named by `label`.
 */
function versionRates(
  counts: Awaited<ReturnType<typeof passCounts>>,
  label: (clusterId: string) => string,
): VersionPassRate[] {
  const perVersion = new Map(counts.byCluster.map((c) => [`${c.clusterId} ${c.agentVersionId}`, c.sessions]));
  const clusterIds = [...new Set(counts.byCluster.map((c) => c.clusterId))];
  const versions: VersionPassRate[] = [];
  for (const [i, v] of counts.byVersion.entries()) {
    const rate = passRate(v.total - v.failed, v.total);
    const before = i > 0 ? counts.byVersion[i - 1]! : null;
    const previous = before ? versions[i - 1]! : null;
    const grew = before
      ? clustersThatGrew(
          clusterIds.map((clusterId) => ({
            clusterId,
            previous: perVersion.get(`${clusterId} ${before.agentVersionId}`) ?? 0,
            current: perVersion.get(`${clusterId} ${v.agentVersionId}`) ?? 0,
          })),
          before.total,
          v.total,
        )
      : [];
    versions.push({
      ...rate,
      agentVersionId: v.agentVersionId,
      version: v.version,
      firstSeen: new Date(v.firstSeen).toISOString(),
      previous: before?.version ?? null,
      regression: previous ? regression(previous, rate) : null,
      grew: grew.map((g) => ({ ...g, label: label(g.clusterId) })),
    });
  }
  return versions;
}

/**
 * What a regression watch looks at, and only that: the versions flagged (overall and per check) as
 * getRegressions flags them, from the per-version counts alone (no per-day rows, no list of the agent's
 * clusters). `versions` are all the agent's versions for their rates; only flagged ones name the clusters that
 * grew (the rest keep them by id).
 */
export async function regressionsToWatch(principal: Principal, agentId: string, prisma: Db) {
  authorize(principal, "clusters.read");
  const [counts, checkCounts] = await Promise.all([
    passCounts(prisma, agentId, { days: false }),
    checkPassCounts(prisma, agentId, { days: false }),
  ]);
  const unnamed = versionRates(counts, (id) => id);
  const flagged = unnamed.filter((v) => v.regression?.flagged);
  const rows = await clustersOfAgentByIds(prisma, agentId, [
    ...new Set(flagged.flatMap((v) => v.grew.map((g) => g.clusterId))),
  ]);
  const labels = new Map(rows.map((c) => [c.id, presentCluster(c).label]));
  const versions = unnamed.map((v) =>
    v.regression?.flagged
      ? { ...v, grew: v.grew.map((g) => ({ ...g, label: labels.get(g.clusterId) ?? g.clusterId })) }
      : v,
  );
  return { versions, regressions: versions.filter((v) => v.regression?.flagged), checks: perCheck(checkCounts) };
}

export async function getRegressions(principal: Principal, input: AgentRef, prisma: Db) {
  authorize(principal, "clusters.read");
  const agent = await resolveAgent(prisma, input);
  const [counts, clusters, checkCounts] = await Promise.all([
    passCounts(prisma, agent.id),
    listClusters(prisma, agent.id, 10_000),
    checkPassCounts(prisma, agent.id),
  ]);
  const labels = new Map(clusters.map((c) => [c.id, presentCluster(c).label]));
  const versions = versionRates(counts, (id) => labels.get(id) ?? id);
  const days = new Map<string, { total: number; failed: number }>();
  for (const d of counts.byDay) {
    const sum = days.get(d.day) ?? { total: 0, failed: 0 };
    sum.total += d.total;
    sum.failed += d.failed;
    days.set(d.day, sum);
  }
  const byDay: DayPassRate[] = [...days].map(([day, d]) => ({ day, ...passRate(d.total - d.failed, d.total) }));
  return {
    agent,
    versions,
    days: byDay,
    regressions: versions.filter((v) => v.regression?.flagged),
    checks: perCheck(checkCounts),
  };
}
export type Regressions = Awaited<ReturnType<typeof getRegressions>>;
