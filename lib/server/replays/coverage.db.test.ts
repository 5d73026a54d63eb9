import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@/lib/db/client";
import { savePolicyByName } from "@/lib/db/policies";
import { withTransaction } from "@/lib/db/transactions";
import { loadReplayView } from "@/lib/db/replays-testing";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import { parseInput } from "@/lib/errors";
import { COVERAGE_SOURCES, replayCoverage, toolCallArgs, type Policy } from "@/lib/replay";
import * as coverage from "./coverage";
import * as experiments from "../experiments/experiments";
import { localAdmin } from "../principal";
import * as replayInputs from "./replay-inputs";
import * as replays from "./replays";
import { demoDatabase, RECORDED, refusal, viewer } from "../testing";

const startReplay = async (prisma: Db, raw: unknown) =>
  replays.startReplay(localAdmin("tester"), parseInput(replayInputs.StartReplayInput, raw), prisma);

describe.each(TEST_ENGINES)("policy coverage on %s", (engine) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await demoDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("a replay's coverage counts its stored steps by source and lists the blocked tool's recordings as unused", async () => {
    // A session whose base run calls at least two tools.
    const sessions = await db.prisma.session.findMany({
      where: { isReplay: false },
      select: {
        id: true,
        events: { where: { kind: "tool_call" }, select: { name: true, seq: true, input: true, status: true } },
      },
      orderBy: { id: "asc" },
    });
    const session = sessions.find((s) => new Set(s.events.map((e) => e.name)).size >= 2);
    if (!session) throw new Error("the demo data has no session calling two tools");
    const blockedTool = session.events[0]!.name;
    const policy: Policy = {
      model: "recorded-only",
      drift: "continue_to_terminal",
      tools: {
        default: { type: "history", scope: "baseline", on_miss: "error_result" },
        overrides: { [blockedTool]: { type: "blocked" } },
      },
    };
    const { id } = await startReplay(db.prisma, { sessionId: session.id, policy });
    const view = await loadReplayView(db.prisma, id);
    const toolSteps = view!.steps.filter((s) => s.kind === "tool_call");
    expect(toolSteps.length).toBeGreaterThan(0);

    const got = await coverage.getReplayCoverage(viewer, { replayId: id }, db.prisma);
    expect(got.tools.map((t) => t.tool)).toEqual([...new Set(session.events.map((e) => e.name))].sort());
    for (const t of got.tools) {
      const mine = toolSteps.filter((s) => s.name === t.tool);
      expect(t.calls).toBe(mine.length);
      for (const source of COVERAGE_SOURCES)
        expect(t.bySource[source]).toBe(mine.filter((s) => s.source === source).length);
    }
    const blocked = got.tools.find((t) => t.tool === blockedTool)!;
    expect(blocked.bySource.blocked).toBe(blocked.calls);
    expect(blocked.unused).toEqual(
      session.events
        .filter((e) => e.name === blockedTool)
        .sort((a, b) => a.seq - b.seq)
        .map((e) => ({ seq: e.seq, args: toolCallArgs(e), status: e.status })),
    );
    // The stored replay gives what the engine's function gives on the same steps.
    expect(got).toEqual(replayCoverage({ base: view!.base, steps: view!.steps, policy }));
  });

  it("an experiment's coverage sums its replays and names the session of each unused recording", async () => {
    const { versionId } = await withTransaction(db.prisma, (tx) =>
      savePolicyByName(tx, { name: "coverage recorded", agentId: null, document: RECORDED }),
    );
    const version = await db.prisma.agentVersion.findFirstOrThrow({
      where: { agent: { name: "tau-bench-airline-agent" } },
      select: { id: true },
    });
    const created = await experiments.createExperiment(
      localAdmin("tester"),
      parseInput(experiments.CreateExperimentInput, {
        name: "coverage",
        policyVersionId: versionId,
        agentVersionId: version.id,
      }),
      db.prisma,
    );
    await experiments.runExperiment(localAdmin("tester"), { experimentId: created.id }, db.prisma);

    const got = await coverage.getExperimentCoverage(viewer, { experimentId: created.id }, db.prisma);
    expect(got.replays).toBe(created.total);
    const steps = await db.prisma.replayStep.findMany({
      where: { kind: "tool_call", replay: { experimentId: created.id } },
      select: { name: true, source: true, baseSeq: true, replay: { select: { sessionId: true, id: true } } },
    });
    const names = [...new Set(steps.map((s) => s.name))].sort();
    expect(got.tools.map((t) => t.tool).filter((t) => names.includes(t))).toEqual(names);
    for (const t of got.tools) {
      const mine = steps.filter((s) => s.name === t.tool);
      expect(t.calls).toBe(mine.length);
      expect(t.bySource.recorded).toBe(mine.filter((s) => s.source === "recorded").length);
    }
    // Recorded-only over unchanged runs: every finished recording plays at its own seq, so what is unused
    // is exactly the tool calls of the cohort's base runs that no replayed step aligned with.
    const played = new Set(
      steps.filter((s) => s.source === "recorded").map((s) => `${s.replay.sessionId}:${s.baseSeq}`),
    );
    const replayBySession = new Map(steps.map((s) => [s.replay.sessionId, s.replay.id]));
    const baseCalls = await db.prisma.event.findMany({
      where: { kind: "tool_call", sessionId: { in: [...replayBySession.keys()] } },
      select: { sessionId: true, seq: true, name: true },
    });
    const expected = baseCalls
      .filter((e) => !played.has(`${e.sessionId}:${e.seq}`))
      .map((e) => `${e.name}:${e.sessionId}:${e.seq}:${replayBySession.get(e.sessionId)}`)
      .sort();
    const unused = got.tools
      .flatMap((t) => t.unused.map((u) => `${t.tool}:${u.sessionId}:${u.seq}:${u.replayId}`))
      .sort();
    expect(unused).toEqual(expected);
  });

  it("refuses an unknown replay or experiment with not_found, and an empty id with invalid_input", async () => {
    expect((await refusal(coverage.getReplayCoverage(viewer, { replayId: "nope" }, db.prisma))).code).toBe("not_found");
    expect((await refusal(coverage.getExperimentCoverage(viewer, { experimentId: "nope" }, db.prisma))).code).toBe(
      "not_found",
    );
    const empty = await refusal(coverage.getReplayCoverage(viewer, { replayId: "" }, db.prisma));
    expect(empty.code).toBe("invalid_input");
    expect(empty.issues).toEqual([{ path: "replayId", message: "Name the replay." }]);
  });
});
