import { importDocument, type ImportFormat, type ImportIssue } from "@/lib/ingest";
import type { Db } from "@/lib/db/client";
import { saveImportedSessions, type SavedSession } from "@/lib/db/session-save";

export type ImportedDocumentResult =
  | { ok: true; format: ImportFormat; sessions: (SavedSession & { title: string | null })[] }
  | { ok: false; format: ImportFormat | null; issues: ImportIssue[]; summary?: string };

/**
 * Imports one document of any supported format (detected, or `format`) and
 * writes its sessions in one transaction: all or nothing. Sessions imported
 * before (same format and source id) come back with their id, marked
 * `duplicate`. The API (`POST /api/v1/sessions`) and the upload page share it.
 */
export async function importAndSave(
  prisma: Db,
  body: string | Uint8Array,
  opts: { format?: ImportFormat; filename?: string } = {},
): Promise<ImportedDocumentResult> {
  const result = importDocument(body, opts);
  if (!result.ok) return result;
  const saved = await saveImportedSessions(prisma, result.sessions);
  return {
    ok: true,
    format: result.format,
    sessions: saved.map((s, i) => ({ ...s, title: result.sessions[i]?.title ?? null })),
  };
}
