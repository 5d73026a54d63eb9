/**
 * A report's lifecycle: a draft may be edited, given evidence and deleted; publishing needs a Finding and
 * freezes it, and a published report never changes again. The rules as pure checks, for lib/db's writes and
 * the operations in lib/server/reports.
 */
import { AppError } from "@/lib/errors";
import type { ReportSections } from "./sections";

export const REPORT_STATUSES = ["draft", "published"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** A stored status as the closed list (anything but "published" is a draft). */
export function reportStatusOf(value: string): ReportStatus {
  return value === "published" ? "published" : "draft";
}

/** Why a report cannot be published, as issues (empty when it can). */
export function publishIssues(sections: Pick<ReportSections, "finding">): { path: string; message: string }[] {
  return sections.finding.trim() === ""
    ? [{ path: "sections.finding", message: "Write the Finding before publishing." }]
    : [];
}

export function refuseUnpublishable(sections: Pick<ReportSections, "finding">): void {
  const issues = publishIssues(sections);
  if (issues.length > 0)
    throw new AppError(
      "invalid_input",
      "A report without a Finding cannot be published: say what went wrong first.",
      issues,
    );
}

export function refuseUnlessDraft(row: { id: string; status: string }, what: string): void {
  if (row.status !== "draft")
    throw new AppError(
      "wrong_state",
      `Report "${row.id}" is published and cannot be ${what}: published reports never change. Delete it or write a new one.`,
    );
}
