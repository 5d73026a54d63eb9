/**
 * The operations of lib/server called directly (not through HTTP), on real
 * databases: each one's success and its refusals. Replays and experiments
 * have their own files (replays.db.test.ts, experiments.db.test.ts); the
 * refusal of a principal without the role is in authz.test.ts.
 */
import { loadReplayView } from "@/lib/db/replays-testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { parseInput } from "@/lib/errors";
import { RECOMMENDED_RCA_POLICY, type Policy } from "@/lib/replay";
import * as apiKeys from "./team/api-keys";
import * as comparisonPages from "./replays/comparison-pages";
import * as executors from "./executors/executors";
import * as experiments from "./experiments/experiments";
import * as policies from "./policies/policies";
import { localAdmin } from "./principal";
import * as replayInputs from "./replays/replay-inputs";
import * as replayPresets from "./replays/replay-presets";
import * as replayReads from "./replays/replay-reads";
import * as replays from "./replays/replays";
import * as queuedReplays from "./replays/run-queued-replay";
import * as reports from "./reports/reports";
import * as sessions from "./sessions/sessions";
import { RECORDED, REFUND_DOC, refusal } from "./testing";

const admin = localAdmin("olga");

describe.each(TEST_ENGINES)("operations on %s", (engine) => {
  let db: TestDatabase;
  let sessionId: string;
  let agentId: string;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("sessions: imports a document once (again: the same ids, marked duplicate), lists and reads it; refuses what is not there", async () => {
    const first = await sessions.importSessions(admin, { body: REFUND_DOC, filename: "refund-agent.json" }, db.prisma);
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.format).toBe("native");
    expect(first.sessions.every((s) => !s.duplicate)).toBe(true);
    const again = await sessions.importSessions(admin, { body: REFUND_DOC }, db.prisma);
    expect(again.ok && again.sessions.map((s) => [s.id, s.duplicate])).toEqual(first.sessions.map((s) => [s.id, true]));
    const unknown = await sessions.importSessions(admin, { body: '{"hello": 1}' }, db.prisma);
    expect(unknown).toMatchObject({ ok: false, format: null });

    sessionId = first.sessions[0]!.id;
    const listed = await sessions.listSessions(admin, parseInput(sessions.ListSessionsInput, {}), db.prisma);
    expect(listed.total).toBe(first.sessions.length);
    expect(listed.sessions.map((s) => s.id)).toContain(sessionId);
    expect(listed.facets.agents.length).toBeGreaterThan(0);
    const session = await sessions.getSession(admin, { sessionId }, db.prisma);
    expect(session.events.length).toBe(first.sessions[0]!.eventCount);
    agentId = session.agentId;
    await refusal(sessions.getSession(admin, { sessionId: "nope" }, db.prisma), "not_found");
  });

  it("policies: create from a preset, save versions (unchanged: none), save by name, read; refuse unknown ids and invalid documents", async () => {
    const created = await policies.createPolicy(
      admin,
      parseInput(policies.CreatePolicyInput, {
        name: "p1",
        agentId,
        source: { kind: "preset", preset: "recommended" },
      }),
      db.prisma,
    );
    expect(created).toMatchObject({ version: 1, draft: null });
    await refusal(
      policies.createPolicy(
        admin,
        { name: "p", agentId: "nope", source: { kind: "preset", preset: "recorded-only" } },
        db.prisma,
      ),
      "not_found",
    );
    const badImport = await refusal(
      policies.createPolicy(admin, { name: "p", source: { kind: "import", text: "not json" } }, db.prisma),
      "invalid_policy",
    );
    expect(badImport.issues[0]!.path).toMatch(/^source\.text/);

    const first = (await policies.getPolicy(admin, { policyId: created.id }, db.prisma)).versions[0]!
      .document as Policy;
    const unchanged = await policies.savePolicyVersion(admin, { policyId: created.id, policy: first }, db.prisma);
    expect(unchanged).toMatchObject({ version: 1, created: false });
    const saved = await policies.savePolicyVersion(
      admin,
      { policyId: created.id, policy: { ...first, maxSteps: 77 }, note: "shorter" },
      db.prisma,
    );
    expect(saved).toMatchObject({ version: 2, created: true });
    const invalid = await refusal(
      policies.savePolicyVersion(admin, { policyId: created.id, policy: { model: "nope" } }, db.prisma),
      "invalid_policy",
    );
    expect(invalid.issues.every((i) => i.path.startsWith("policy"))).toBe(true);
    await refusal(policies.savePolicyVersion(admin, { policyId: "nope", policy: RECORDED }, db.prisma), "not_found");

    const byName = await policies.savePolicyByName(admin, { name: "auto", policy: RECORDED }, db.prisma);
    expect(byName.created).toBe(true);
    expect((await policies.savePolicyByName(admin, { name: "auto", policy: RECORDED }, db.prisma)).created).toBe(false);
    await refusal(
      policies.savePolicyByName(admin, { name: "x", agentId: "nope", policy: RECORDED }, db.prisma),
      "not_found",
    );

    const policy = await policies.getPolicy(admin, { policyId: created.id }, db.prisma);
    expect(policy.versions.map((v) => v.version)).toEqual([2, 1]);
    await refusal(policies.getPolicy(admin, { policyId: "nope" }, db.prisma), "not_found");
    const editor = await policies.getPolicyForEditor(admin, { policyId: created.id }, db.prisma);
    expect(editor.agent?.id).toBe(agentId);
    expect(editor.calls.length).toBeGreaterThan(0);
    await refusal(policies.getPolicyForEditor(admin, { policyId: "nope" }, db.prisma), "not_found");
    const listed = await policies.listPolicies(admin, {}, db.prisma);
    expect(listed.policies.map((p) => p.name).sort()).toEqual(["auto", "p1"]);
    expect(listed.agents.map((a) => a.id)).toContain(agentId);
    const versions = await policies.policyVersionsForAgent(admin, { agentId }, db.prisma);
    expect(versions.length).toBe(3);

    expect(
      await policies.setToolSideEffect(admin, { agentId, tool: "lookup_order", sideEffect: "read" }, db.prisma),
    ).toEqual({
      name: "lookup_order",
      sideEffect: "read",
    });
    await refusal(
      policies.setToolSideEffect(admin, { agentId: "nope", tool: "t", sideEffect: "read" }, db.prisma),
      "not_found",
    );

    const call = editor.calls[0]!;
    const tried = await policies.tryRule(
      admin,
      { agentId, document: RECOMMENDED_RCA_POLICY, sessionId: call.sessionId, seq: call.seq },
      db.prisma,
    );
    expect(tried.verdict.type).toBe("answer");
    await refusal(
      policies.tryRule(admin, { agentId, document: RECORDED, sessionId: "nope", seq: 0 }, db.prisma),
      "not_found",
    );
    await refusal(
      policies.tryRule(admin, { agentId, document: RECORDED, sessionId: call.sessionId, seq: 0 }, db.prisma),
      "invalid_input",
    );
    await refusal(
      policies.tryRule(admin, { agentId, document: { model: 1 }, sessionId: call.sessionId, seq: call.seq }, db.prisma),
      "invalid_policy",
    );
  });

  it("replays and reports: read a finished replay, report on it, share and revoke the link; refuse unknown ids", async () => {
    const started = await replays.startReplay(
      admin,
      parseInput(replayInputs.StartReplayInput, { sessionId, policy: RECORDED }),
      db.prisma,
    );
    const view = (await loadReplayView(db.prisma, started.id))!;
    expect(view.replay.status).toBe("completed");
    expect(view.replay.createdBy).toBe("olga");
    const state = await replayReads.getReplayState(admin, { replayId: started.id }, db.prisma);
    expect({ status: state.status, stepCount: state.stepCount, cancelRequested: state.cancelRequested }).toEqual({
      status: "completed",
      stepCount: view.steps.length,
      cancelRequested: false,
    });
    // The run's last progress write may land before or after its lease is let go; when it lands it says done.
    if (state.progress) expect(state.progress.done).toBe(state.progress.total);
    expect((await replayReads.listReplays(admin, {}, db.prisma)).replays.map((r) => r.id)).toEqual([started.id]);
    const comparison = await replayReads.getReplayComparison(admin, { replayId: started.id }, db.prisma);
    expect(comparison.comparison.pairs.length).toBeGreaterThan(0);
    const pair = await replayReads.getComparisonPair(admin, { replayId: started.id, pairId: "p0-0" }, db.prisma);
    expect(pair.base?.seq).toBe(0);
    expect(pair.branch?.seq).toBe(0);
    const warnings = await replays.replayPolicyWarnings(
      admin,
      { sessionId, documents: [RECORDED, { model: 1 }] },
      db.prisma,
    );
    expect(warnings[1]!.length).toBeGreaterThan(0);
    // The replay form's presets for this OpenAI Agents session: adapted (no history default there), so no caveat.
    const choices = await replayPresets.replayPresets(admin, { sessionId }, db.prisma);
    const presets = choices.filter((c) => c.value.startsWith("preset:"));
    expect(presets.map((c) => [c.value, c.warnings, c.policy?.tools.default])).toEqual([
      ["preset:recommended", [], { type: "passthrough", approval: "per_call" }],
      ["preset:recorded", [], { type: "passthrough", approval: "per_call" }],
    ]);
    expect(Object.keys(presets[0]!.policy!.tools.overrides ?? {}).length).toBeGreaterThan(0);
    expect(choices.slice(presets.length).every((c) => c.value.startsWith("version:") && c.versionId)).toBe(true);
    await refusal(replayPresets.replayPresets(admin, { sessionId: "nope" }, db.prisma), "not_found");
    for (const op of [replayReads.getReplayState, replayReads.getReplayComparison, comparisonPages.getReportPicker])
      await refusal(op(admin, { replayId: "nope" }, db.prisma), "not_found");
    await refusal(replayReads.getComparisonPair(admin, { replayId: "nope", pairId: "p0-0" }, db.prisma), "not_found");
    await refusal(queuedReplays.runReplay(admin, { replayId: "nope" }, db.prisma), "not_found");

    const report = await reports.createReport(
      admin,
      parseInput(reports.CreateReportInput, {
        replayId: started.id,
        title: "Refund RCA",
        sections: { finding: "The refund is confirmed before the gateway answers." },
        publish: true,
      }),
      db.prisma,
    );
    expect(report.createdBy).toBe("olga");
    await refusal(
      reports.createReport(admin, parseInput(reports.CreateReportInput, { replayId: "nope", title: "t" }), db.prisma),
      "not_found",
    );
    const read = await reports.getReport(admin, { reportId: report.id }, db.prisma);
    expect(read.shares).toEqual([]);
    await refusal(reports.getReport(admin, { reportId: "nope" }, db.prisma), "not_found");
    expect((await reports.listReports(admin, {}, db.prisma)).reports.map((r) => r.id)).toEqual([report.id]);

    const { share, url } = await reports.createShare(
      admin,
      { reportId: report.id, expiresIn: "1d", baseUrl: "http://example.test/" },
      db.prisma,
    );
    expect(url).toMatch(/^http:\/\/example\.test\/share\/[A-Za-z0-9_-]{22}$/);
    const token = url.split("/").at(-1)!;
    expect((await reports.openSharedReport(admin, { token }, db.prisma))?.id).toBe(report.id);
    expect(await reports.openSharedReport(admin, { token: "x".repeat(22) }, db.prisma)).toBeNull();
    await refusal(
      reports.createShare(admin, { reportId: "nope", expiresIn: "1d", baseUrl: "http://x" }, db.prisma),
      "not_found",
    );
    const page = await reports.getReportPage(admin, { reportId: report.id }, db.prisma);
    expect(page).toMatchObject({ liveReplayId: started.id, shares: [{ id: share.id, state: "active" }] });
    await refusal(reports.getReportPage(admin, { reportId: "nope" }, db.prisma), "not_found");
    expect((await reports.revokeShare(admin, { shareId: share.id }, db.prisma)).state).toBe("revoked");
    expect(await reports.openSharedReport(admin, { token }, db.prisma)).toBeNull();
    await refusal(reports.revokeShare(admin, { shareId: "nope" }, db.prisma), "not_found");
  });

  it("experiments: reads refuse unknown ids; the form's choices list the agent version", async () => {
    await refusal(experiments.getExperiment(admin, { experimentId: "nope" }, db.prisma), "not_found");
    await refusal(experiments.getExperimentProgress(admin, { experimentId: "nope" }, db.prisma), "not_found");
    expect(await experiments.listExperiments(admin, {}, db.prisma)).toEqual([]);
    const choices = await experiments.experimentChoices(admin, {}, db.prisma);
    expect(choices.agentVersions.some((v) => v.agentId === agentId)).toBe(true);
    expect(choices.policyVersions.length).toBe(3);
  });

  it("executors: saves endpoints and hosts, shows whether each host is allowed, removes them; refuses what is not a host", async () => {
    const model = await executors.saveModelEndpoint(
      admin,
      parseInput(executors.ModelEndpointInput, {
        name: "m",
        baseUrl: "http://127.0.0.1:9/v1",
        model: "gpt-x",
        apiKeyEnv: "",
      }),
      db.prisma,
    );
    await executors.saveToolEndpoint(
      admin,
      parseInput(executors.ToolEndpointInput, {
        toolName: "lookup_order",
        url: "http://tools.test/lookup",
        timeoutMs: 1000,
        readOnly: true,
      }),
      db.prisma,
    );
    const host = await executors.addAllowedHost(admin, { host: "HTTP://127.0.0.1:9" }, db.prisma);
    expect(host.host).toBe("127.0.0.1:9");
    const invalid = await refusal(executors.addAllowedHost(admin, { host: "http://x/y" }, db.prisma), "invalid_input");
    expect(invalid.issues).toEqual([{ path: "host", message: "not a host" }]);
    expect(
      executors.ModelEndpointInput.safeParse({ name: "m", baseUrl: "http://x", model: "m", apiKeyEnv: "DATABASE_URL" })
        .success,
    ).toBe(false);
    const settings = await executors.executorSettings(admin, {}, db.prisma);
    expect(settings.models).toMatchObject([{ id: model.id, apiKeyEnv: null, keySet: null, hostAllowed: true }]);
    expect(settings.tools).toMatchObject([{ toolName: "lookup_order", readOnly: true, hostAllowed: false }]);
    expect(await executors.removeExecutorSetting(admin, { kind: "model", id: model.id }, db.prisma)).toEqual({
      removed: model.id,
    });
    expect((await executors.executorSettings(admin, {}, db.prisma)).models).toEqual([]);
    // Removing what is gone already records nothing; each change is audited by name, with its author.
    await executors.removeExecutorSetting(admin, { kind: "model", id: model.id }, db.prisma);
    const audit = await db.prisma.auditEvent.findMany({
      where: { action: { in: ["executor.changed", "allowed_host.changed"] } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    expect(audit.map((a) => [a.actorName, a.action, a.target, (a.detail as { change: string }).change])).toEqual([
      ["olga", "executor.changed", "m", "saved"],
      ["olga", "executor.changed", "lookup_order", "saved"],
      ["olga", "allowed_host.changed", "127.0.0.1:9", "saved"],
      ["olga", "executor.changed", "m", "removed"],
    ]);
  });

  it("api keys: made (shown once), listed without the secret, revoked once", async () => {
    const created = await apiKeys.createApiKey(admin, { name: "ci" }, db.prisma);
    expect(created.key).toMatch(/^bp_/);
    const listed = await apiKeys.listApiKeys(admin, {}, db.prisma);
    expect(listed.map((k) => k.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(await apiKeys.revokeApiKey(admin, { id: created.id }, db.prisma)).toEqual({ id: created.id });
    await refusal(apiKeys.revokeApiKey(admin, { id: created.id }, db.prisma), "not_found");
  });
});
