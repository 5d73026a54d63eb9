import { describe, expect, it } from "vitest";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import * as apiKeys from "./team/api-keys";
import * as coverage from "./replays/coverage";
import * as clusters from "./clusters/clusters";
import * as regressions from "./clusters/regressions";
import * as clusterLabel from "./clusters/cluster-label";
import { authorize, can, PERMISSIONS, type Permission } from "./authz";
import * as executors from "./executors/executors";
import * as mcpServers from "./executors/mcp-servers";
import * as connectors from "./connectors/connectors";
import * as connectorAdmin from "./connectors/connector-admin";
import * as runPull from "./connectors/run-pull";
import * as experimentFixtures from "./experiments/experiment-fixtures";
import * as experiments from "./experiments/experiments";
import * as investigations from "./investigations/investigations";
import * as investigationReads from "./investigations/investigation-reads";
import * as runInvestigation from "./investigations/run-investigation";
import * as jobs from "./jobs/jobs";
import * as policies from "./policies/policies";
import type { Principal, Role } from "./principal";
import * as comparisonPages from "./replays/comparison-pages";
import * as comparisonStore from "./replays/comparison-store";
import * as replayDocuments from "./replays/replay-documents";
import * as replayPages from "./replays/replay-pages";
import * as replayPresets from "./replays/replay-presets";
import * as executeReplays from "./replays/execute-replay";
import * as replayReads from "./replays/replay-reads";
import * as replayResume from "./replays/replay-resume";
import * as replays from "./replays/replays";
import * as queuedReplays from "./replays/run-queued-replay";
import * as reports from "./reports/reports";
import * as sessions from "./sessions/sessions";
import * as failedRuns from "./sessions/failed-runs";
import * as sessionCompare from "./sessions/session-compare";
import * as sessionExport from "./sessions/export";
import * as annotations from "./sessions/annotations";
import * as playground from "./playground/playground";
import * as reportComments from "./reports/comments";
import * as reviews from "./reviews/reviews";
import * as datasets from "./datasets/datasets";

/**
 * Every operation of every lib/server module, with the permission it needs.
 * A new exported operation without a row here fails the first test.
 */
const OPERATIONS: Record<string, Permission> = {
  "export.exportSessions": "sessions.read",
  "annotations.listAnnotations": "sessions.read",
  "annotations.addAnnotation": "notes.write",
  "annotations.deleteAnnotation": "notes.write",
  "playground.playgroundStep": "sessions.read",
  "playground.runPlayground": "replays.run",
  "report-comments.listReportComments": "reports.read",
  "report-comments.addReportComment": "notes.write",
  "report-comments.deleteReportComment": "notes.write",
  "datasets.listDatasets": "datasets.read",
  "datasets.getDataset": "datasets.read",
  "datasets.createDataset": "datasets.write",
  "datasets.updateDataset": "datasets.write",
  "datasets.deleteDataset": "datasets.write",
  "datasets.addDatasetMembers": "datasets.write",
  "datasets.removeDatasetMembers": "datasets.write",
  "api-keys.createApiKey": "api_keys.own",
  "api-keys.revokeApiKey": "api_keys.own",
  "api-keys.listApiKeys": "api_keys.own",
  "coverage.getReplayCoverage": "coverage.read",
  "coverage.getExperimentCoverage": "coverage.read",
  "executors.executorSettings": "executors.read",
  "executors.saveModelEndpoint": "executors.manage",
  "executors.saveToolEndpoint": "executors.manage",
  "executors.addAllowedHost": "executors.manage",
  "executors.removeExecutorSetting": "executors.manage",
  "mcp-servers.listMcpExecutors": "executors.read",
  "mcp-servers.registerMcpExecutor": "executors.manage",
  "mcp-servers.removeMcpExecutor": "executors.manage",
  "experiment-fixtures.experimentFixtureGroups": "experiments.read",
  "experiment-fixtures.supplyGroupFixture": "replays.run",
  "experiments.createExperiment": "experiments.run",
  "experiments.runExperiment": "experiments.run",
  "experiments.startExperiment": "experiments.run",
  "experiments.getExperiment": "experiments.read",
  "experiments.getExperimentProgress": "experiments.read",
  "experiments.listExperiments": "experiments.read",
  "experiments.experimentChoices": "experiments.read",
  "investigations.createInvestigation": "investigations.run",
  "run-investigation.runInvestigation": "investigations.run",
  "run-investigation.startInvestigation": "investigations.run",
  "investigation-reads.cancelInvestigation": "investigations.run",
  "investigation-reads.getInvestigation": "investigations.read",
  "investigation-reads.listSessionInvestigations": "investigations.read",
  "investigation-reads.listInvestigations": "investigations.read",
  "investigation-reads.staleRecordingsUsed": "replays.read",
  "experiments.previewCohort": "experiments.read",
  "jobs.cancelReplay": "replays.run",
  "jobs.cancelExperiment": "experiments.run",
  "jobs.retryReplay": "jobs.manage",
  "jobs.listJobs": "jobs.manage",
  "policies.createPolicy": "policies.write",
  "policies.savePolicyVersion": "policies.write",
  "policies.savePolicyByName": "policies.write",
  "policies.setToolSideEffect": "policies.write",
  "policies.tryRule": "policies.read",
  "policies.getPolicy": "policies.read",
  "policies.getPolicyForEditor": "policies.read",
  "policies.listPolicies": "policies.read",
  "policies.policyVersionsForAgent": "policies.read",
  "replays.replayPolicyWarnings": "replays.read",
  "replay-presets.replayPresets": "replays.read",
  "replays.createReplay": "replays.run",
  "run-queued-replay.runReplay": "replays.run",
  "replays.startReplay": "replays.run",
  "replay-resume.supplyFixture": "replays.run",
  "replay-resume.decideApproval": "replays.run",
  "replay-reads.getReplayComparison": "replays.read",
  "replay-reads.getReplayState": "replays.read",
  "replay-reads.listReplays": "replays.read",
  "replay-reads.getComparisonPair": "replays.read",
  "reports.createReport": "reports.write",
  "reports.updateReport": "reports.write",
  "reports.publishReport": "reports.write",
  "reports.deleteReport": "reports.write",
  "reports.getReport": "reports.read",
  "reports.getReportPage": "reports.read",
  "reports.listReports": "reports.read",
  "reports.createShare": "shares.manage",
  "reports.revokeShare": "shares.manage",
  "reports.openSharedReport": "reports.read",
  "reports.addReportEvidence": "reports.write",
  "reports.removeReportEvidence": "reports.write",
  "reports.evidenceDrafts": "reports.read",
  "sessions.importSessions": "sessions.import",
  "sessions.ingestOtlpSpans": "sessions.import",
  "sessions.ingestOtlpLogs": "sessions.import",
  "sessions.ingestAgentsItems": "sessions.import",
  "sessions.listSessions": "sessions.read",
  "failed-runs.failedRuns": "sessions.read",
  "session-compare.getSessionComparison": "sessions.read",
  "session-compare.listSessionComparisonRows": "sessions.read",
  "session-compare.findSessionComparisonRow": "sessions.read",
  "session-compare.getSessionComparisonPair": "sessions.read",
  "session-compare.openSessionComparisonWindow": "sessions.read",
  "session-compare.compareCandidates": "sessions.read",
  "sessions.getSession": "sessions.read",
  "sessions.openSession": "sessions.read",
  "sessions.getSessionHead": "sessions.read",
  "sessions.getSessionOutline": "sessions.read",
  "replay-documents.openReplay": "replays.read",
  "replay-documents.openReplayComparison": "replays.read",
  "replay-documents.openReplayComparisonWindow": "replays.read",
  "replay-pages.getReplayPage": "replays.read",
  "replay-pages.listReplaySteps": "replays.read",
  "replay-pages.getReplayStep": "replays.read",
  "comparison-pages.getComparisonPage": "replays.read",
  "comparison-pages.listComparisonRows": "replays.read",
  "comparison-pages.findComparisonRow": "replays.read",
  "comparison-pages.listPairChoices": "replays.read",
  "comparison-pages.getReportPicker": "replays.read",
  "clusters.listFailureClusters": "clusters.read",
  "clusters.listClusterAgents": "clusters.read",
  "clusters.getFailureCluster": "clusters.read",
  "clusters.listClusterSessions": "clusters.read",
  "clusters.renameFailureCluster": "clusters.write",
  "clusters.mergeFailureClusters": "clusters.write",
  "clusters.splitFailureCluster": "clusters.write",
  "clusters.listClusterMemberWork": "clusters.read",
  "cluster-label.clusterLabelEndpoints": "clusters.write",
  "cluster-label.suggestClusterLabel": "clusters.write",
  "regressions.getRegressions": "clusters.read",
  "regressions.regressionsToWatch": "clusters.read",
  "connectors.listConnectors": "executors.read",
  "connectors.createConnector": "executors.manage",
  "connectors.startPull": "sessions.import",
  "connectors.getPull": "sessions.read",
  "connectors.listConnectorPulls": "sessions.read",
  "connectors.cancelPull": "sessions.import",
  "connector-admin.updateConnector": "executors.manage",
  "connector-admin.deleteConnector": "executors.manage",
  "reviews.listReviewQueues": "sessions.read",
  "reviews.getReviewQueue": "sessions.read",
  "reviews.createReviewQueue": "notes.write",
  "reviews.deleteReviewQueue": "notes.write",
  "reviews.listReviewItems": "sessions.read",
  "reviews.addReviewItems": "notes.write",
  "reviews.updateReviewItem": "notes.write",
  "reviews.completeReview": "notes.write",
  "reviews.getReviewPage": "sessions.read",
  "reviews.reviewQueueChoices": "sessions.read",
};

/** Pure helpers a service module exports besides its operations (re-exported engine predicates). */
const NOT_OPERATIONS = new Set([
  "replay-reads.isTerminal",
  "experiment-fixtures.groupPausedMembers",
  "investigations.presentInvestigation",
  "jobs.presentJobs",
  "investigations.blameLiveBudget",
  // A step of runInvestigation (the stale check's run), which authorizes before it.
  "investigations.runStaleCheck",
  // The job worker's entry points: a worker runs replays it took from the queue, on no one's behalf.
  "run-queued-replay.runNow",
  "run-queued-replay.enqueueReplaysFor",
  "run-queued-replay.runQueuedReplay",
  "execute-replay.LeaseLost",
  "execute-replay.executeReplay",
  "execute-replay.describeError",
  // How many comparisons were built: what the tests of the stored comparisons count.
  "comparison-pages.comparisonBuilds",
  "comparison-store.comparisonBuilds",
  // The stored comparison's build and read, under the operations that authorize (comparison-pages) and as a run
  // stores its steps (execute-replay), on no one's behalf.
  "comparison-store.buildStoredComparison",
  "comparison-store.storeComparisonInRun",
  "comparison-store.currentComparison",
  // Pure: a compared session as a page or the API names it; and how many session pairs were aligned (for tests).
  "session-compare.presentComparedSession",
  "session-compare.sessionComparisonWork",
  "annotations.presentAnnotation",
  "report-comments.presentReportComment",
  // A pull as the API shows it; the pull job's worker entry point (it runs on no one's behalf, as replays do).
  "connectors.pullView",
  "connectors.connectorView",
  "run-pull.runPull",
  // A review queue and an item as pages and the API show them.
  "reviews.presentReviewQueue",
  "reviews.presentReviewItem",
]);

const MODULES: Record<string, Record<string, unknown>> = {
  "api-keys": apiKeys,
  coverage,
  executors,
  "mcp-servers": mcpServers,
  "experiment-fixtures": experimentFixtures,
  experiments,
  investigations,
  "investigation-reads": investigationReads,
  "run-investigation": runInvestigation,
  jobs,
  policies,
  replays,
  "execute-replay": executeReplays,
  "replay-reads": replayReads,
  "replay-resume": replayResume,
  "run-queued-replay": queuedReplays,
  reports,
  sessions,
  "failed-runs": failedRuns,
  "session-compare": sessionCompare,
  export: sessionExport,
  annotations,
  playground,
  "report-comments": reportComments,
  datasets,
  "replay-pages": replayPages,
  "replay-presets": replayPresets,
  "comparison-pages": comparisonPages,
  "comparison-store": comparisonStore,
  "replay-documents": replayDocuments,
  clusters,
  regressions,
  "cluster-label": clusterLabel,
  connectors,
  "connector-admin": connectorAdmin,
  "run-pull": runPull,
  reviews,
};

type Operation = (principal: Principal, input: unknown, prisma: Db) => Promise<unknown>;

function operations(): [string, Operation][] {
  const out: [string, Operation][] = [];
  for (const [module, exports] of Object.entries(MODULES)) {
    for (const [name, value] of Object.entries(exports)) {
      // Schemas are objects; operations are the exported functions.
      if (typeof value !== "function" || NOT_OPERATIONS.has(`${module}.${name}`)) continue;
      out.push([`${module}.${name}`, value as Operation]);
    }
  }
  return out;
}

const principal = (role: Role, readOnly = false): Principal => ({
  kind: "user",
  userId: "u1",
  name: `a ${role}`,
  role,
  readOnly,
});

/** A database that fails the test when touched: an operation must refuse before it reads anything. */
const untouchable = new Proxy(
  {},
  {
    get(_target, key) {
      throw new Error(`the database was used (${String(key)}) before the operation authorized its principal`);
    },
  },
) as unknown as Db;

async function outcome(op: Operation, who: Principal): Promise<unknown> {
  return op(who, {}, untouchable).then(
    () => "ok",
    (error: unknown) => error,
  );
}

const RANKED: Role[] = ["viewer", "analyst", "admin"];

describe("authorization", () => {
  it("every exported operation has a permission rule, and every rule names an operation", () => {
    const names = operations().map(([name]) => name);
    expect(names.filter((n) => !(n in OPERATIONS))).toEqual([]);
    expect(Object.keys(OPERATIONS).filter((n) => !names.includes(n))).toEqual([]);
  });

  it.each(Object.entries(OPERATIONS))("%s needs %s, checked before any data is read", async (name, permission) => {
    const op = operations().find(([n]) => n === name)![1];
    const needed = PERMISSIONS[permission];
    for (const role of RANKED) {
      const result = await outcome(op, principal(role));
      if (RANKED.indexOf(role) < RANKED.indexOf(needed)) {
        expect(result, `${role} must be refused`).toBeInstanceOf(AppError);
        expect((result as AppError).code).toBe("forbidden");
        expect((result as AppError).status).toBe(403);
      } else {
        // Past authorize: whatever it does next (read the database, refuse the empty input) is not a refusal of the principal.
        expect(result instanceof AppError && result.code === "forbidden", `${role} must pass`).toBe(false);
      }
    }
    const readOnly = await outcome(op, principal("admin", true));
    if (needed === "viewer") expect(readOnly instanceof AppError && readOnly.code === "forbidden").toBe(false);
    else expect((readOnly as AppError).code).toBe("forbidden");
  });

  it("the table: minimum role per permission, read-only principals only viewer-level", () => {
    expect(can(principal("viewer"), "sessions.read")).toBe(true);
    expect(can(principal("viewer"), "replays.run")).toBe(false);
    expect(can(principal("analyst"), "replays.run")).toBe(true);
    expect(can(principal("analyst"), "executors.manage")).toBe(false);
    expect(can(principal("admin"), "executors.manage")).toBe(true);
    expect(can(principal("admin", true), "sessions.read")).toBe(true);
    expect(can(principal("viewer"), "coverage.read")).toBe(true);
    expect(can(principal("admin", true), "coverage.read")).toBe(true);
    expect(can(principal("admin", true), "replays.run")).toBe(false);
    expect(() => authorize(principal("viewer"), "executors.manage")).toThrow(/needs the admin role/);
  });
});
