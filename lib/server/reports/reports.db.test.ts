/**
 * Report drafts, called as operations on real databases: a report is a draft
 * until published, can be edited and deleted while a draft, cannot be
 * published without a Finding, never changes once published, and only a
 * published report can be shared.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_ENGINES, type TestDatabase } from "@/lib/db/testing";
import { parseInput } from "@/lib/errors";
import { localAdmin } from "../principal";
import * as reports from "./reports";
import { refundDatabase, refusal } from "../testing";

const admin = localAdmin("olga");

describe.each(TEST_ENGINES)("report drafts on %s", (engine) => {
  let db: TestDatabase;
  let replayId: string;

  beforeAll(async () => {
    ({ db, replayId } = await refundDatabase(engine, { as: admin, replay: true }));
  });
  afterAll(async () => {
    await db?.drop();
  });

  const create = (input: Record<string, unknown>) =>
    reports.createReport(admin, parseInput(reports.CreateReportInput, { replayId, ...input }), db.prisma);

  it("an empty form makes a draft; it is edited, refused publication without a Finding, then published and frozen", async () => {
    const draft = await create({ title: "Refund RCA" });
    expect(draft).toMatchObject({ status: "draft", publishedAt: null, sections: { finding: "", pinnedPairs: [] } });
    expect((await reports.listReports(admin, {}, db.prisma)).reports.find((r) => r.id === draft.id)?.status).toBe(
      "draft",
    );

    // A draft cannot be shared, nor published while the Finding is empty.
    await refusal(
      reports.createShare(admin, { reportId: draft.id, expiresIn: "1d", baseUrl: "http://x" }, db.prisma),
      "wrong_state",
    );
    const noFinding = await refusal(reports.publishReport(admin, { reportId: draft.id }, db.prisma), "invalid_input");
    expect(noFinding.issues).toEqual([{ path: "sections.finding", message: "Write the Finding before publishing." }]);
    // Whitespace is not a Finding either.
    await reports.updateReport(
      admin,
      parseInput(reports.UpdateReportInput, { reportId: draft.id, sections: { finding: "  \n " } }),
      db.prisma,
    );
    await refusal(reports.publishReport(admin, { reportId: draft.id }, db.prisma), "invalid_input");
    expect((await reports.getReport(admin, { reportId: draft.id }, db.prisma)).status).toBe("draft");

    // Edit: title alone keeps the sections; sections replace them whole and re-pin steps from the replay.
    const retitled = await reports.updateReport(
      admin,
      parseInput(reports.UpdateReportInput, { reportId: draft.id, title: "Refund confirmed too early" }),
      db.prisma,
    );
    expect(retitled.title).toBe("Refund confirmed too early");
    expect(retitled.sections.finding).toBe("  \n ");
    const edited = await reports.updateReport(
      admin,
      parseInput(reports.UpdateReportInput, {
        reportId: draft.id,
        sections: { finding: "The agent confirms the refund first.", scope: "Order 4821", pinnedPairs: ["p1-1"] },
      }),
      db.prisma,
    );
    expect(edited.title).toBe("Refund confirmed too early");
    expect(edited.sections).toMatchObject({
      finding: "The agent confirms the refund first.",
      scope: "Order 4821",
      pinnedPairs: ["p1-1"],
    });
    expect(edited.snapshot.pinnedPairs).toEqual(["p1-1"]);
    await refusal(
      reports.updateReport(
        admin,
        parseInput(reports.UpdateReportInput, { reportId: draft.id, sections: { pinnedPairs: ["p99-99"] } }),
        db.prisma,
      ),
      "invalid_input",
    );
    expect((await reports.getReport(admin, { reportId: draft.id }, db.prisma)).sections.pinnedPairs).toEqual(["p1-1"]);

    const published = await reports.publishReport(admin, { reportId: draft.id }, db.prisma);
    expect(published.status).toBe("published");
    expect(published.publishedAt).not.toBeNull();
    expect(published.sections).toEqual(edited.sections);

    // Published: no edit, no second publish; the stored report is unchanged by the refused edit.
    await refusal(
      reports.updateReport(
        admin,
        parseInput(reports.UpdateReportInput, { reportId: draft.id, title: "changed" }),
        db.prisma,
      ),
      "wrong_state",
    );
    await refusal(reports.publishReport(admin, { reportId: draft.id }, db.prisma), "wrong_state");
    const { shares: _shares, ...after } = await reports.getReport(admin, { reportId: draft.id }, db.prisma);
    expect(after).toEqual(published);

    // Now it can be shared.
    const { url } = await reports.createShare(
      admin,
      { reportId: draft.id, expiresIn: "1d", baseUrl: "http://x" },
      db.prisma,
    );
    expect((await reports.openSharedReport(admin, { token: url.split("/").at(-1)! }, db.prisma))?.id).toBe(draft.id);
    // The link names who made it, and the audit log has it.
    const [link] = (await reports.getReport(admin, { reportId: draft.id }, db.prisma)).shares;
    expect(link?.createdBy).toBe(admin.name);
    const audit = await db.prisma.auditEvent.findMany({
      where: { target: draft.id },
      select: { action: true, actorName: true },
    });
    expect(audit).toEqual([{ action: "share.created", actorName: admin.name }]);
  });

  it("publishes at creation only with a Finding; refuses edits that say nothing and unknown reports", async () => {
    const refused = await refusal(create({ title: "t", publish: true }), "invalid_input");
    expect(refused.issues.map((i) => i.path)).toEqual(["sections.finding"]);
    const before = (await reports.listReports(admin, {}, db.prisma)).reports.length;
    const at = await create({ title: "at once", sections: { finding: "found" }, publish: true });
    expect(at.status).toBe("published");
    expect((await reports.listReports(admin, {}, db.prisma)).reports.length).toBe(before + 1);

    expect(reports.UpdateReportInput.safeParse({ reportId: at.id }).success).toBe(false);
    expect(reports.UpdateReportInput.safeParse({ reportId: at.id, title: " " }).success).toBe(false);
    expect(reports.UpdateReportInput.safeParse({ reportId: at.id, title: "x", status: "draft" }).success).toBe(false);
    await refusal(
      reports.updateReport(admin, parseInput(reports.UpdateReportInput, { reportId: "nope", title: "x" }), db.prisma),
      "not_found",
    );
    await refusal(reports.publishReport(admin, { reportId: "nope" }, db.prisma), "not_found");
    await refusal(reports.deleteReport(admin, { reportId: "nope" }, db.prisma), "not_found");
  });

  it("deletes a draft, and a published report with its share links (the link stops opening it)", async () => {
    const draft = await create({ title: "to delete" });
    expect(await reports.deleteReport(admin, { reportId: draft.id }, db.prisma)).toEqual({
      id: draft.id,
      status: "draft",
    });
    await refusal(reports.getReport(admin, { reportId: draft.id }, db.prisma), "not_found");
    await refusal(reports.deleteReport(admin, { reportId: draft.id }, db.prisma), "not_found");

    const shared = await create({ title: "shared", sections: { finding: "f" }, publish: true });
    const { url } = await reports.createShare(
      admin,
      { reportId: shared.id, expiresIn: "never", baseUrl: "http://x" },
      db.prisma,
    );
    const token = url.split("/").at(-1)!;
    expect((await reports.openSharedReport(admin, { token }, db.prisma))?.id).toBe(shared.id);
    expect(await reports.deleteReport(admin, { reportId: shared.id }, db.prisma)).toEqual({
      id: shared.id,
      status: "published",
    });
    expect(await reports.openSharedReport(admin, { token }, db.prisma)).toBeNull();
    expect(await db.prisma.shareLink.count({ where: { reportId: shared.id } })).toBe(0);
  });
});
