/** Annotations: people's labels, scores and comments on a session or one of its steps. */
import type { DbClient } from "./client";

export type AnnotationRow = {
  id: string;
  sessionId: string;
  seq: number | null;
  label: string | null;
  score: number | null;
  comment: string | null;
  author: string;
  authorId: string | null;
  createdAt: Date;
};

/** The most annotations a session's page and answer list (newest first past that are left out). */
export const MAX_ANNOTATIONS = 500;

/** A session's annotations, oldest first (a conversation about it reads down), at most MAX_ANNOTATIONS. */
export async function sessionAnnotations(client: DbClient, sessionId: string): Promise<AnnotationRow[]> {
  return client.annotation.findMany({
    where: { sessionId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: MAX_ANNOTATIONS,
  });
}

export async function insertAnnotation(
  client: DbClient,
  data: Omit<AnnotationRow, "id" | "createdAt">,
): Promise<AnnotationRow> {
  return client.annotation.create({ data });
}

export async function findAnnotation(client: DbClient, id: string): Promise<AnnotationRow | null> {
  return client.annotation.findUnique({ where: { id } });
}

export async function removeAnnotation(client: DbClient, id: string): Promise<void> {
  await client.annotation.deleteMany({ where: { id } });
}

/** Every label in use, with how many sessions carry it: the session list's label menu. */
export async function annotationLabels(client: DbClient): Promise<{ label: string; sessions: number }[]> {
  const rows = await client.$queryRaw<{ label: string; sessions: bigint }[]>`
    SELECT "label", count(DISTINCT "sessionId") AS sessions FROM "Annotation"
    WHERE "label" IS NOT NULL GROUP BY "label" ORDER BY "label"`;
  return rows.map((r) => ({ label: r.label, sessions: Number(r.sessions) }));
}
