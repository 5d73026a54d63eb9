import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  RECOMMENDED_RCA_POLICY,
  assignCallIdentity,
  policyHash,
  toolLevelPreset,
  type Policy,
  type SessionEvent,
} from "@/lib/replay";
import type { ImportedSession } from "@/lib/ingest";
import {
  addPolicyVersion,
  agentContext,
  agentTools,
  createPolicy,
  getPolicy,
  listPolicies,
  recordedCalls,
  savePolicyByName,
  setToolSideEffect,
} from "./policies";
import { withTransaction } from "./transactions";
import { validateInContext } from "@/lib/policies/validation";
import { tryRule } from "@/lib/server/policies/policies";
import { localAdmin } from "@/lib/server/principal";
import type { Db } from "./client";

/** Trying a rule is an operation (lib/server); its database reads are tested here. */
const tryRuleOnRecordedCall = (
  prisma: Db,
  input: { agentId: string; policy: Policy; sessionId: string; seq: number },
) =>
  tryRule(
    localAdmin("tester"),
    { agentId: input.agentId, document: input.policy, sessionId: input.sessionId, seq: input.seq },
    prisma,
  );
import { saveImportedSessions } from "./session-save";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

const SEED_000_EXAMPLE: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  maxSteps: 100,
  tools: {
    default: { type: "history", scope: "baseline", on_miss: "fail" },
    overrides: {
      get_current_time: { type: "passthrough" },
      refund_payment: {
        type: "static",
        cases: [{ match_mode: "exact", match: { order_id: "4821" }, result: "refund issued: $129.00" }],
        on_miss: "error_result",
      },
    },
  },
};

/** A one-call session of `agent`: the call's outcome is `output`, or a failure. */
function oneCallSession(
  externalId: string,
  version: string,
  call: { tool: string; args: unknown; output?: unknown },
): ImportedSession {
  const step = {
    error: null,
    startedAt: null,
    durationMs: 5,
    usage: null,
    parentSeq: null,
    status: "completed" as const,
  };
  const events = assignCallIdentity([
    {
      ...step,
      seq: 0,
      kind: "user_message" as const,
      name: "user",
      input: { role: "user", content: "where is my order?" },
      output: null,
    },
    {
      ...step,
      seq: 1,
      kind: "model_call" as const,
      name: "gpt-test",
      input: { messages: [] },
      output: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: call.tool, args: call.args }] },
    },
    "output" in call
      ? {
          ...step,
          seq: 2,
          kind: "tool_call" as const,
          name: call.tool,
          input: { callId: "c1", args: call.args },
          output: call.output,
          parentSeq: 1,
        }
      : {
          ...step,
          seq: 2,
          kind: "tool_call" as const,
          name: call.tool,
          input: { callId: "c1", args: call.args },
          output: null,
          parentSeq: 1,
          status: "failed" as const,
          error: { type: "Timeout", message: "timed out" },
        },
    { ...step, seq: 3, kind: "final_output" as const, name: "final", input: null, output: "done" },
  ]) satisfies SessionEvent[];
  return {
    externalId,
    title: externalId,
    agent: { name: "try-history-agent", adapter: "generic" },
    agentVersion: { version, capabilities: [] },
    format: "native",
    startedAt: null,
    endedAt: null,
    metadata: {},
    tools: [],
    events,
  };
}

describe.each(TEST_ENGINES)("policies on %s", (engine) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    await loadDemoData(db.prisma);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("creates a policy with version 1 and the document's content hash", async () => {
    const { id, version } = await withTransaction(db.prisma, (tx) =>
      createPolicy(tx, { name: "rca", document: RECOMMENDED_RCA_POLICY }),
    );
    expect(version).toMatchObject({ id, version: 1, created: true, hash: policyHash(RECOMMENDED_RCA_POLICY) });
    const stored = await getPolicy(db.prisma, id);
    expect(stored?.latestVersion).toBe(1);
    expect(stored?.versions.map((v) => v.version)).toEqual([1]);
    expect(stored?.versions[0]?.document).toEqual(RECOMMENDED_RCA_POLICY);
  });

  it("the same document has the same hash whatever its key order; saving it unchanged creates no version", async () => {
    const { id } = await withTransaction(db.prisma, (tx) =>
      createPolicy(tx, { name: "stable", document: SEED_000_EXAMPLE }),
    );
    const reordered = JSON.parse(
      JSON.stringify({
        tools: SEED_000_EXAMPLE.tools,
        maxSteps: 100,
        drift: "continue_to_terminal",
        model: "recorded-only",
      }),
    ) as Policy;
    const again = await withTransaction(db.prisma, (tx) => addPolicyVersion(tx, id, reordered));
    expect(again).toMatchObject({ version: 1, created: false, hash: policyHash(SEED_000_EXAMPLE) });
    expect((await getPolicy(db.prisma, id))?.versions).toHaveLength(1);
  });

  it("a changed document becomes version 2; version 1 stays as it was (immutable)", async () => {
    const { id, version: v1 } = await withTransaction(db.prisma, (tx) =>
      createPolicy(tx, { name: "evolving", document: RECOMMENDED_RCA_POLICY }),
    );
    const changed: Policy = { ...RECOMMENDED_RCA_POLICY, tools: toolLevelPreset("recorded-only"), maxSteps: 50 };
    const v2 = await withTransaction(db.prisma, (tx) => addPolicyVersion(tx, id, changed, { note: "stricter" }));
    expect(v2).toMatchObject({ version: 2, created: true });
    expect(v2.hash).not.toBe(v1!.hash);
    const stored = await getPolicy(db.prisma, id);
    expect(stored?.latestVersion).toBe(2);
    expect(stored?.versions.map((v) => [v.version, v.hash, v.note])).toEqual([
      [2, v2.hash, "stricter"],
      [1, v1!.hash, null],
    ]);
    expect(stored?.versions[1]?.document).toEqual(RECOMMENDED_RCA_POLICY);
    // Going back to the first document is a new version (3), not a rewrite of 1.
    const v3 = await withTransaction(db.prisma, (tx) => addPolicyVersion(tx, id, RECOMMENDED_RCA_POLICY));
    expect(v3).toMatchObject({ version: 3, created: true, hash: v1!.hash });
  });

  it("concurrent saves of different documents get distinct version numbers", async () => {
    const { id } = await withTransaction(db.prisma, (tx) => createPolicy(tx, { name: "race" }));
    const docs = [10, 20, 30].map((maxSteps) => ({ ...RECOMMENDED_RCA_POLICY, maxSteps }));
    const saved = await Promise.all(docs.map((d) => withTransaction(db.prisma, (tx) => addPolicyVersion(tx, id, d))));
    expect(saved.map((s) => s.version).sort()).toEqual([1, 2, 3]);
    expect((await getPolicy(db.prisma, id))?.latestVersion).toBe(3);
    await expect(
      db.prisma.policyVersion.create({ data: { policyId: id, version: 2, document: {}, hash: "x" } }),
    ).rejects.toThrow();
  });

  it("a failed version write leaves the policy's latestVersion as it was", async () => {
    const { id } = await withTransaction(db.prisma, (tx) =>
      createPolicy(tx, { name: "atomic", document: RECOMMENDED_RCA_POLICY }),
    );
    await expect(
      withTransaction(db.prisma, (tx) => addPolicyVersion(tx, id, { ...RECOMMENDED_RCA_POLICY, maxSteps: -1 })),
    ).rejects.toThrow();
    expect((await getPolicy(db.prisma, id))?.latestVersion).toBe(1);
  });

  it("saving by name adds versions to the same policy; lists show the latest hash", async () => {
    const a = await withTransaction(db.prisma, (tx) =>
      savePolicyByName(tx, { name: "by-name", agentId: null, document: RECOMMENDED_RCA_POLICY }),
    );
    const b = await withTransaction(db.prisma, (tx) =>
      savePolicyByName(tx, { name: "by-name", agentId: null, document: RECOMMENDED_RCA_POLICY }),
    );
    const c = await withTransaction(db.prisma, (tx) =>
      savePolicyByName(tx, { name: "by-name", agentId: null, document: SEED_000_EXAMPLE }),
    );
    expect(b).toEqual({ ...a, created: false });
    expect(c).toMatchObject({ id: a.id, version: 2, created: true });
    const listed = (await listPolicies(db.prisma)).find((p) => p.id === a.id);
    expect(listed?.versions[0]).toMatchObject({ version: 2, hash: c.hash });
  });

  it("validates in the agent's context: the openai-agents agent warns of a history default", async () => {
    const agent = await db.prisma.agent.findUniqueOrThrow({ where: { name: "harbor-pine-support" } });
    const context = await agentContext(db.prisma, agent.id);
    expect(context).toMatchObject({ adapter: "openai-agents", capabilities: ["overrides", "tool_policies"] });
    // Saved as a replay runs it: the engine intercepts every tool, so the runtime caveat is a warning.
    const result = validateInContext(RECOMMENDED_RCA_POLICY, context);
    expect(result.ok).toBe(true);
    expect(result.warnings.map((e) => [e.code, e.severity, e.path])).toEqual([
      ["openai_agents_history_default", "warning", ["tools", "default"]],
    ]);
    // Without an agent only the context-free checks apply.
    expect(validateInContext(RECOMMENDED_RCA_POLICY, null).ok).toBe(true);
  });

  it("lists the agent's tools with call counts, and declares side effects on the tool row", async () => {
    const agent = await db.prisma.agent.findUniqueOrThrow({ where: { name: "harbor-pine-support" } });
    const tools = await agentTools(db.prisma, agent.id);
    expect(tools.map((t) => t.name).sort()).toEqual(["get_current_time", "lookup_order", "refund_payment"]);
    expect(tools.every((t) => t.calls > 0)).toBe(true);
    await setToolSideEffect(db.prisma, agent.id, "lookup_order", "none");
    await setToolSideEffect(db.prisma, agent.id, "not_seen_yet", "read");
    const after = await agentTools(db.prisma, agent.id);
    expect(after.find((t) => t.name === "lookup_order")?.sideEffect).toBe("none");
    expect(after.find((t) => t.name === "not_seen_yet")).toEqual({
      name: "not_seen_yet",
      sideEffect: "read",
      calls: 0,
      declared: true,
    });
  });

  it("tries a rule on a recorded call and explains a miss", async () => {
    const agent = await db.prisma.agent.findUniqueOrThrow({ where: { name: "harbor-pine-support" } });
    const calls = await recordedCalls(db.prisma, agent.id);
    const refund = calls.find((c) => c.tool === "refund_payment");
    expect(refund).toBeDefined();
    const hit = await tryRuleOnRecordedCall(db.prisma, {
      agentId: agent.id,
      policy: RECOMMENDED_RCA_POLICY,
      sessionId: refund!.sessionId,
      seq: refund!.seq,
    });
    expect(hit.verdict.type).toBe("answer");
    const miss = await tryRuleOnRecordedCall(db.prisma, {
      agentId: agent.id,
      policy: {
        ...SEED_000_EXAMPLE,
        tools: {
          ...SEED_000_EXAMPLE.tools,
          overrides: {
            refund_payment: {
              type: "static",
              cases: [{ match_mode: "exact", match: { order_id: "nope" }, result: 1 }],
              on_miss: "error_result",
            },
          },
        },
      },
      sessionId: refund!.sessionId,
      seq: refund!.seq,
    });
    expect(miss.verdict.type).toBe("answer");
    expect(miss.verdict.type === "answer" && miss.verdict.miss?.reason).toBe("no_static_case_matched");
  });

  it("tries agent and cohort_version history through the database: another session of the agent answers, replays do not", async () => {
    const call = { tool: "lookup_order", args: { order: "A-1" } };
    const [other, tried, replayed] = await saveImportedSessions(db.prisma, [
      oneCallSession("try-history:other", "v1", { ...call, output: "from another session" }),
      oneCallSession("try-history:tried", "v1", call),
      oneCallSession("try-history:replay", "v2", { ...call, output: "from a replay" }),
    ]);
    // Newest first: the replay, then the tried session, then the one holding the recording.
    const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1, 0, minutes));
    await db.prisma.session.update({ where: { id: other!.id }, data: { createdAt: at(0) } });
    await db.prisma.session.update({ where: { id: tried!.id }, data: { createdAt: at(1) } });
    await db.prisma.session.update({ where: { id: replayed!.id }, data: { createdAt: at(2), isReplay: true } });
    const agent = await db.prisma.agent.findUniqueOrThrow({ where: { name: "try-history-agent" } });
    const scoped = (scope: "agent" | "cohort_version"): Policy => ({
      ...SEED_000_EXAMPLE,
      tools: { default: { type: "history", scope, on_miss: "fail" } },
    });

    const byAgent = await tryRuleOnRecordedCall(db.prisma, {
      agentId: agent.id,
      policy: scoped("agent"),
      sessionId: tried!.id,
      seq: 2,
    });
    expect(byAgent.verdict).toMatchObject({
      type: "answer",
      source: "recorded",
      output: "from another session",
      error: null,
    });

    const byCohort = await tryRuleOnRecordedCall(db.prisma, {
      agentId: agent.id,
      policy: scoped("cohort_version"),
      sessionId: tried!.id,
      seq: 2,
    });
    expect(byCohort.verdict).toMatchObject({ type: "answer", source: "recorded", output: "from another session" });

    await db.prisma.event.updateMany({ where: { sessionId: other!.id, seq: 2 }, data: { status: "failed" } });
    const none = await tryRuleOnRecordedCall(db.prisma, {
      agentId: agent.id,
      policy: scoped("agent"),
      sessionId: tried!.id,
      seq: 2,
    });
    expect(none.verdict).toMatchObject({
      type: "stop",
      code: "tool_miss_fail",
      miss: { reason: "no_completed_match_in_scope", scope: "agent" },
    });
  });
});
