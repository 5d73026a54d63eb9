import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import { parseInput } from "@/lib/errors";
import * as experiments from "../experiments/experiments";
import { demoDatabase, refusal, user, viewer } from "../testing";
import type { Principal } from "../principal";
import type { Db } from "@/lib/db/client";
import * as inputs from "./dataset-inputs";
import * as ops from "./datasets";

// The operations, called with input parsed by their schemas (as every adapter does).
const datasets = {
  createDataset: async (who: Principal, raw: unknown, prisma: Db, limits?: ops.DatasetLimits) =>
    ops.createDataset(who, parseInput(inputs.CreateDatasetInput, raw), prisma, limits),
  addDatasetMembers: async (who: Principal, raw: unknown, prisma: Db, limits?: ops.DatasetLimits) =>
    ops.addDatasetMembers(who, parseInput(inputs.DatasetMembersInput, raw), prisma, limits),
  removeDatasetMembers: async (who: Principal, raw: unknown, prisma: Db) =>
    ops.removeDatasetMembers(who, parseInput(inputs.DatasetMembersInput, raw), prisma),
  getDataset: async (who: Principal, raw: unknown, prisma: Db) =>
    ops.getDataset(who, parseInput(inputs.DatasetPageInput, raw), prisma),
  updateDataset: async (who: Principal, raw: unknown, prisma: Db) =>
    ops.updateDataset(who, parseInput(inputs.UpdateDatasetInput, raw), prisma),
  deleteDataset: async (who: Principal, raw: unknown, prisma: Db) =>
    ops.deleteDataset(who, parseInput(inputs.DatasetRef, raw), prisma),
  listDatasets: ops.listDatasets,
};

const ana = user("u-ana", "Ana");
const bo = user("u-bo", "Bo");

describe.each(TEST_ENGINES)("datasets on %s", (engine) => {
  let db: TestDatabase;
  /** The tau-bench agent's recorded sessions, oldest imported first. */
  let tau: string[];
  /** A session of another agent. */
  let other: string;

  beforeAll(async () => {
    db = await demoDatabase(engine);
    tau = (
      await db.prisma.session.findMany({
        where: { agent: { name: "tau-bench-airline-agent" }, isReplay: false },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        select: { id: true },
      })
    ).map((s) => s.id);
    other = (
      await db.prisma.session.findFirstOrThrow({
        where: { agent: { name: { not: "tau-bench-airline-agent" } } },
        select: { id: true },
      })
    ).id;
    expect(tau.length).toBeGreaterThanOrEqual(3);
  });
  afterAll(async () => {
    await db?.drop();
  });

  const count = () => db.prisma.dataset.count();
  const memberCount = () => db.prisma.datasetMember.count();

  it("saves the sessions named, once each, signed by who added them; a page of members in the order added", async () => {
    const created = await datasets.createDataset(
      ana,
      { name: "  Refund cases ", description: "two runs", sessionIds: [tau[0]!, tau[1]!, tau[0]!] },
      db.prisma,
    );
    expect(created.added).toBe(2);
    expect(created.dataset).toMatchObject({ name: "Refund cases", description: "two runs", createdBy: "Ana", size: 2 });
    const page = await datasets.getDataset(viewer, { datasetId: created.dataset.id, offset: 0, limit: 1 }, db.prisma);
    expect(page.members.total).toBe(2);
    expect(page.members.items).toHaveLength(1);
    expect(page.members.items[0]!.sessionId).toBe([tau[0]!, tau[1]!].sort()[0]);
    expect(page.members.items[0]!.addedBy).toBe("Ana");
    const second = await datasets.getDataset(viewer, { datasetId: created.dataset.id, offset: 1, limit: 5 }, db.prisma);
    expect(second.members.items.map((m) => m.sessionId)).toEqual([[tau[0]!, tau[1]!].sort()[1]]);
    const listed = await datasets.listDatasets(viewer, {}, db.prisma);
    expect(listed.find((d) => d.id === created.dataset.id)?.size).toBe(2);
  });

  it("refuses ids that name no session, naming them, and writes nothing", async () => {
    const [datasetsBefore, membersBefore] = [await count(), await memberCount()];
    const error = await refusal(
      datasets.createDataset(ana, { name: "Bad", sessionIds: [tau[0]!, "nope-1", "nope-2"] }, db.prisma),
      "invalid_input",
    );
    expect(error.message).toBe("2 ids name no session: nope-1, nope-2. Nothing was changed.");
    expect(error.issues).toEqual([
      { path: "sessionIds", message: '"nope-1" is not a session' },
      { path: "sessionIds", message: '"nope-2" is not a session' },
    ]);
    const { dataset } = await datasets.createDataset(ana, { name: "Grows", sessionIds: [tau[0]!] }, db.prisma);
    await refusal(
      datasets.addDatasetMembers(ana, { datasetId: dataset.id, sessionIds: [tau[1]!, "ghost"] }, db.prisma),
      "invalid_input",
    );
    expect([await count(), await memberCount()]).toEqual([datasetsBefore + 1, membersBefore + 1]);
  });

  it("adding a member again is idempotent and keeps who added it; the cap refuses the whole addition", async () => {
    const { dataset } = await datasets.createDataset(ana, { name: "Idem", sessionIds: [tau[0]!] }, db.prisma);
    const added = await datasets.addDatasetMembers(
      bo,
      { datasetId: dataset.id, sessionIds: [tau[0]!, tau[1]!, tau[1]!] },
      db.prisma,
    );
    expect(added).toEqual({ added: 1, alreadyIn: 1, size: 2 });
    const rows = await db.prisma.datasetMember.findMany({
      where: { datasetId: dataset.id },
      select: { sessionId: true, addedBy: true },
      orderBy: { sessionId: "asc" },
    });
    expect(Object.fromEntries(rows.map((r) => [r.sessionId, r.addedBy]))).toEqual({
      [tau[0]!]: "Ana",
      [tau[1]!]: "Bo",
    });
    const over = await refusal(
      datasets.addDatasetMembers(bo, { datasetId: dataset.id, sessionIds: [tau[2]!, other] }, db.prisma, {
        maxSessions: 3,
      }),
      "invalid_input",
    );
    expect(over.message).toBe(
      "A dataset holds at most 3 sessions: this one has 2, and 2 more would make 4. Nothing was changed.",
    );
    expect(await db.prisma.datasetMember.count({ where: { datasetId: dataset.id } })).toBe(2);
    // More ids in one request than a request may name: refused by the schema.
    await refusal(
      datasets.addDatasetMembers(
        bo,
        { datasetId: dataset.id, sessionIds: Array.from({ length: 1001 }, (_, i) => `s${i}`) },
        db.prisma,
      ),
      "invalid_input",
    );
  });

  it("removes members; one not in it counts as already removed", async () => {
    const { dataset } = await datasets.createDataset(
      ana,
      { name: "Shrinks", sessionIds: [tau[0]!, tau[1]!] },
      db.prisma,
    );
    expect(
      await datasets.removeDatasetMembers(ana, { datasetId: dataset.id, sessionIds: [tau[1]!, tau[2]!] }, db.prisma),
    ).toEqual({ removed: 1, notMembers: 1, size: 1 });
    await refusal(
      datasets.removeDatasetMembers(ana, { datasetId: dataset.id, sessionIds: ["ghost"] }, db.prisma),
      "invalid_input",
    );
    await refusal(
      datasets.removeDatasetMembers(ana, { datasetId: "none", sessionIds: [tau[0]!] }, db.prisma),
      "not_found",
    );
  });

  it("freezes the sessions a filter matches, newest imported first, capped with a message", async () => {
    const all = await datasets.createDataset(
      ana,
      { name: "All tau", filter: { agent: "tau-bench-airline-agent" } },
      db.prisma,
    );
    expect(all).toMatchObject({ added: tau.length, matching: tau.length, capped: false });
    expect(all.dataset.size).toBe(tau.length);
    const capped = await datasets.createDataset(
      ana,
      { name: "Two tau", filter: { agent: "tau-bench-airline-agent" } },
      db.prisma,
      { maxSessions: 2 },
    );
    expect(capped).toMatchObject({ added: 2, matching: tau.length, capped: true });
    expect(capped.message).toBe(
      `The filter matches ${tau.length} sessions; a dataset holds at most 2, so it holds the 2 imported most recently.`,
    );
    const newest = await db.prisma.session.findMany({
      where: { agent: { name: "tau-bench-airline-agent" } },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: 2,
      select: { id: true },
    });
    const members = await db.prisma.datasetMember.findMany({
      where: { datasetId: capped.dataset.id },
      select: { sessionId: true },
    });
    expect(members.map((m) => m.sessionId).sort()).toEqual(newest.map((s) => s.id).sort());
    await refusal(
      datasets.createDataset(ana, { name: "None", filter: { agent: "no-such-agent" } }, db.prisma),
      "invalid_input",
    );
    const unknownFilter = await refusal(
      datasets.createDataset(ana, { name: "Odd", filter: { colour: "red" } as never }, db.prisma),
      "invalid_input",
    );
    expect(unknownFilter.issues[0]!.path).toBe("filter");
    await refusal(
      datasets.createDataset(ana, { name: "Both", sessionIds: [tau[0]!], filter: { status: "failed" } }, db.prisma),
      "invalid_input",
    );
  });

  it("renames, describes and deletes; a viewer may read and not change", async () => {
    const { dataset } = await datasets.createDataset(ana, { name: "Old", description: "x" }, db.prisma);
    expect(dataset.size).toBe(0);
    const renamed = await datasets.updateDataset(
      bo,
      { datasetId: dataset.id, name: "New", description: "" },
      db.prisma,
    );
    expect(renamed).toMatchObject({ name: "New", description: null });
    await refusal(datasets.updateDataset(viewer, { datasetId: dataset.id, name: "V" }, db.prisma), "forbidden");
    await refusal(datasets.createDataset(viewer, { name: "V" }, db.prisma), "forbidden");
    await refusal(datasets.createDataset(ana, { name: "nul\u0000" }, db.prisma), "invalid_input");
    expect(await datasets.deleteDataset(ana, { datasetId: dataset.id }, db.prisma)).toEqual({
      deleted: { id: dataset.id },
    });
    await refusal(datasets.getDataset(viewer, { datasetId: dataset.id }, db.prisma), "not_found");
  });

  it("an experiment runs over exactly the dataset's members and keeps them, and the name, when it is deleted", async () => {
    const chosen = [tau[2]!, tau[0]!];
    const { dataset } = await datasets.createDataset(ana, { name: "Cohort of two", sessionIds: chosen }, db.prisma);
    const input = parseInput(experiments.CreateExperimentInput, {
      name: "Over the dataset",
      preset: "recorded",
      datasetId: dataset.id,
    });
    const created = await experiments.createExperiment(ana, input, db.prisma);
    expect(created.total).toBe(2);
    const read = async () => experiments.getExperiment(viewer, { experimentId: created.id }, db.prisma);
    const before = await read();
    expect(before.cohortKind).toBe("dataset");
    expect(before.dataset).toEqual({ id: dataset.id, name: "Cohort of two" });
    expect(before.results.map((r) => r.session.id).sort()).toEqual([...chosen].sort());
    const page = await datasets.getDataset(viewer, { datasetId: dataset.id }, db.prisma);
    expect(page.experiments.map((e) => e.id)).toEqual([created.id]);

    await datasets.deleteDataset(ana, { datasetId: dataset.id }, db.prisma);
    const after = await read();
    expect(after.dataset).toEqual({ id: null, name: "Cohort of two" });
    expect(after.results.map((r) => r.session.id).sort()).toEqual([...chosen].sort());
  });

  it("an experiment over a dataset is refused for sessions of two agents, an empty one, or with a subset", async () => {
    const mixed = await datasets.createDataset(ana, { name: "Mixed", sessionIds: [tau[0]!, other] }, db.prisma);
    const start = (raw: object) =>
      experiments.createExperiment(
        ana,
        parseInput(experiments.CreateExperimentInput, { name: "x", preset: "recorded", ...raw }),
        db.prisma,
      );
    const experimentsBefore = await db.prisma.experiment.count();
    const two = await refusal(start({ datasetId: mixed.dataset.id }), "invalid_input");
    expect(two.message).toMatch(/^Dataset "Mixed" holds sessions of 2 agents \(/);
    const empty = await datasets.createDataset(ana, { name: "Empty" }, db.prisma);
    expect((await refusal(start({ datasetId: empty.dataset.id }), "invalid_input")).message).toBe(
      'Dataset "Empty" holds no sessions; add some first.',
    );
    await refusal(start({ datasetId: "missing" }), "not_found");
    const subset = experiments.CreateExperimentInput.safeParse({
      name: "x",
      preset: "recorded",
      datasetId: mixed.dataset.id,
      sessionIds: [tau[0]!],
    });
    expect(subset.error?.issues.map((i) => i.message)).toEqual([
      'A dataset is the whole cohort: send "datasetId" without "sessionIds" or "filter".',
    ]);
    expect(await db.prisma.experiment.count()).toBe(experimentsBefore);
  });
});
