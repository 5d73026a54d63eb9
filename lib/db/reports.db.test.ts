import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importDocument } from "@/lib/ingest";
import { policyHash, replay, RECOMMENDED_RCA_POLICY, type Policy } from "@/lib/replay";
import { FIXTURE_POLICY, refundFixture } from "@/lib/reports/testing";
import { hashShareToken } from "@/lib/reports/share";
import { AppError } from "@/lib/errors";
import type { Db, DbClient } from "./client";
import type { Prisma } from "./generated/client";
import { createShareLink, findSharedReport, listShareLinks, revokeShareLink } from "./report-shares";
import { createReportFromReplay as createReport } from "@/lib/server/reports/report-snapshot";
import { getReport, listReports } from "./reports";
import { createReplayRow, insertFixture, saveRunResult } from "./replay-writes";
import { getSession, toSessionEvent } from "./session-reads";
import { saveImportedSessions } from "./session-save";
import { TEST_ENGINES, createTestDatabase, type TestDatabase } from "./testing";

const jsonOf = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

async function importRefundSession(client: Db, externalId: string): Promise<string> {
  const file = path.join(import.meta.dirname, "../../prisma/seed/native/refund-agent.json");
  const result = importDocument(readFileSync(file, "utf8"), { filename: "refund-agent.json" });
  if (!result.ok || !result.sessions[0]) throw new Error("demo session did not import");
  const [saved] = await saveImportedSessions(client, [{ ...result.sessions[0], externalId }]);
  return saved!.id;
}

/** A replay row as the replays service writes it: run by the engine, persisted with lib/db/replays. */
async function runReplay(
  client: DbClient,
  sessionId: string,
  policy: Policy,
  opts: { fixture?: boolean; policyVersionId?: string } = {},
) {
  const session = await getSession(client, sessionId);
  const base = session!.events.map(toSessionEvent);
  const { id } = await createReplayRow(client, {
    sessionId,
    policy,
    policyHash: policyHash(policy),
    policyVersionId: opts.policyVersionId ?? null,
    edits: [],
    createdBy: "tester",
  });
  const log = [];
  if (opts.fixture) {
    const f = refundFixture("refund pending (gateway timeout)");
    if (f.type !== "fixture") throw new Error("unreachable");
    await insertFixture(client, id, {
      id: f.id + id,
      toolName: f.tool,
      callId: "call_pX4kT8bW0eRj3nLq6yMz1HsD",
      cacheKey: null,
      stepIdx: f.step,
      output: f.output,
      error: null,
      author: "dana",
      note: f.note,
      provenance: {},
      createdAt: new Date(),
    });
    log.push({ ...f, id: f.id + id });
  }
  const result = await replay({ base, policy, log });
  await saveRunResult(client, id, result, new Date());
  return { id, result };
}

describe.each(TEST_ENGINES)("reports on %s", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("a report's snapshot does not change when the policy, the fixtures or the session change afterwards", async () => {
    const client = db.prisma;
    const sessionId = await importRefundSession(client, "immutability");
    const pol = await client.policy.create({ data: { name: "refund fixtures", latestVersion: 1 } });
    const version = await client.policyVersion.create({
      data: { policyId: pol.id, version: 1, document: jsonOf(FIXTURE_POLICY), hash: policyHash(FIXTURE_POLICY) },
    });
    const { id: replayId } = await runReplay(client, sessionId, FIXTURE_POLICY, {
      fixture: true,
      policyVersionId: version.id,
    });
    const created = await createReport(client, {
      replayId,
      title: "Refund confirmed while pending",
      sections: { finding: "The agent confirms a pending refund.", pinnedPairs: ["p6-6"] },
      createdBy: "dana",
    });
    expect(created.sections.validity).toBe("sensitive_to_fixture");
    expect(created.snapshot.policy.version).toEqual({
      id: version.id,
      version: 1,
      policyId: pol.id,
      policyName: "refund fixtures",
    });
    expect(created.snapshot.fixtures).toEqual([
      expect.objectContaining({ author: "dana", toolName: "refund_payment" }),
    ]);
    const before = await getReport(client, created.id);
    expect(before).toEqual(created);

    // The policy is edited (in place, as a misbehaving client might) and renamed; a new fixture arrives; the session is deleted.
    await client.policyVersion.update({
      where: { id: version.id },
      data: { document: jsonOf(RECOMMENDED_RCA_POLICY), hash: "0".repeat(64) },
    });
    await client.policy.update({ where: { id: pol.id }, data: { name: "renamed" } });
    await client.fixture.create({
      data: { replayId, toolName: "lookup_order", author: "eve", note: "late", output: "x" },
    });
    await client.session.delete({ where: { id: sessionId } });

    const after = await getReport(client, created.id);
    expect(after).toEqual(before);
    expect(after!.snapshot.policy.document).toEqual(FIXTURE_POLICY);
    expect((await client.report.findUnique({ where: { id: created.id } }))!.replayId).toBeNull();
  });

  it("refuses a replay that has not finished, and an unknown one", async () => {
    const client = db.prisma;
    const sessionId = await importRefundSession(client, "paused");
    const { id, result } = await runReplay(client, sessionId, FIXTURE_POLICY);
    expect(result.status).toBe("paused");
    const err = await createReport(client, { replayId: id, title: "t", sections: {}, createdBy: "x" }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(409);
    expect((err as AppError).message).toMatch(/paused.*finished replay/);
    await expect(
      createReport(client, { replayId: "nope", title: "t", sections: {}, createdBy: "x" }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      createReport(client, { replayId: "", title: "t", sections: {}, createdBy: "x" }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it("refuses pins that are not pairs of the comparison", async () => {
    const client = db.prisma;
    const sessionId = await importRefundSession(client, "pins");
    const { id } = await runReplay(client, sessionId, RECOMMENDED_RCA_POLICY);
    await expect(
      createReport(client, { replayId: id, title: "t", sections: { pinnedPairs: ["p99-99"] }, createdBy: "x" }),
    ).rejects.toMatchObject({
      status: 400,
      issues: [{ path: "sections.pinnedPairs", message: "unknown pair 'p99-99'" }],
    });
    const ok = await createReport(client, { replayId: id, title: "exact", sections: {}, createdBy: "x" });
    expect(ok.sections.validity).toBe("confirmed_by_replay");
    expect((await listReports(client)).reports.map((r) => r.id)).toContain(ok.id);
  });

  it("stores only the SHA-256 of a share token; the token finds the report until revoked", async () => {
    const client = db.prisma;
    const sessionId = await importRefundSession(client, "share");
    const { id: replayId } = await runReplay(client, sessionId, RECOMMENDED_RCA_POLICY);
    const report = await createReport(client, {
      replayId,
      title: "shared",
      sections: { finding: "f" },
      createdBy: "x",
      publish: true,
    });
    const { share, token } = await createShareLink(client, report.id, "never");
    expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const row = await client.shareLink.findUniqueOrThrow({ where: { id: share.id }, select: { tokenHash: true } });
    expect(row.tokenHash).toBe(hashShareToken(token));
    expect(row.tokenHash).not.toContain(token);
    // The raw token appears nowhere in the database's share links or reports.
    const everything =
      JSON.stringify(await client.shareLink.findMany({ select: { id: true, tokenHash: true, reportId: true } })) +
      JSON.stringify(await client.report.findMany());
    expect(everything).not.toContain(token);
    // tokenHash is left out of ordinary reads.
    expect(Object.keys(await client.shareLink.findUniqueOrThrow({ where: { id: share.id } }))).not.toContain(
      "tokenHash",
    );

    expect((await findSharedReport(client, token))?.id).toBe(report.id);
    expect(await findSharedReport(client, token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"))).toBeNull();
    expect(await findSharedReport(client, undefined)).toBeNull();
    expect(await findSharedReport(client, "")).toBeNull();

    const revoked = await revokeShareLink(client, share.id);
    expect(revoked.state).toBe("revoked");
    expect(await findSharedReport(client, token)).toBeNull();
    const again = await revokeShareLink(client, share.id);
    expect(again.revokedAt).toEqual(revoked.revokedAt);
    await expect(revokeShareLink(client, "nope")).rejects.toMatchObject({ status: 404 });
    await expect(createShareLink(client, "nope", "1d")).rejects.toMatchObject({ status: 404 });
  });

  it("an expired link finds nothing; links list with their state", async () => {
    const client = db.prisma;
    const sessionId = await importRefundSession(client, "expiry");
    const { id: replayId } = await runReplay(client, sessionId, RECOMMENDED_RCA_POLICY);
    const report = await createReport(client, {
      replayId,
      title: "expiring",
      sections: { finding: "f" },
      createdBy: "x",
      publish: true,
    });
    const t0 = new Date("2026-03-01T00:00:00Z");
    const { share, token } = await createShareLink(client, report.id, "1d", t0);
    expect(share.expiresAt?.toISOString()).toBe("2026-03-02T00:00:00.000Z");
    expect((await findSharedReport(client, token, new Date("2026-03-01T23:59:59Z")))?.id).toBe(report.id);
    expect(await findSharedReport(client, token, new Date("2026-03-02T00:00:00Z"))).toBeNull();
    const { share: forever } = await createShareLink(client, report.id, "never", t0);
    const links = await listShareLinks(client, report.id, new Date("2026-03-05T00:00:00Z"));
    expect(links.map((l) => [l.id, l.state])).toEqual(
      expect.arrayContaining([
        [share.id, "expired"],
        [forever.id, "active"],
      ]),
    );
    expect(await listShareLinks(client, "")).toEqual([]);
  });
});
