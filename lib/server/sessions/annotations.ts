/** Annotations: a person's label, score and comment on a session or one of its steps, signed by its author. */
import { z } from "zod";
import type { Db } from "@/lib/db";
import {
  findAnnotation,
  insertAnnotation,
  removeAnnotation,
  sessionAnnotations,
  type AnnotationRow,
} from "@/lib/db/annotations";
import { sessionHead } from "@/lib/db/session-reads";
import { AppError, notFound } from "@/lib/errors";
import { authorize } from "../authz";
import { refuseUnlessAuthor, typedText as typed } from "../notes";
import type { Principal } from "../principal";

/** An empty field of a form is no value. */
const blank = (v: unknown) => (v === "" ? null : v);

/** What a note says: its label, score and comment (a review completes with the same three). */
export const noteFields = {
  label: z.preprocess(blank, typed("label", 64).nullable().optional()),
  score: z.preprocess(
    blank,
    z.coerce
      .number("score must be a number.")
      .min(-1e9, "score is too small.")
      .max(1e9, "score is too large.")
      .nullable()
      .optional(),
  ),
  comment: z.preprocess(blank, typed("comment", 4000).nullable().optional()),
};

const fields = {
  /** The step it is about (its seq); none: the whole session. */
  seq: z.preprocess(
    blank,
    z.coerce
      .number("step must be a number.")
      .int("step must be a whole number.")
      .min(0, "step must be 0 or more.")
      .max(2_147_483_647, "step is too large.")
      .nullable()
      .optional(),
  ),
  ...noteFields,
};

const somethingSaid = (a: { label?: unknown; score?: unknown; comment?: unknown }) =>
  a.label != null || a.score != null || a.comment != null;
const NOTHING_SAID = { message: "Give a label, a score or a comment.", path: ["label"] };

/** What the API's POST takes: the annotation without its session (the path names it). */
export const AnnotationBody = z.strictObject(fields).refine(somethingSaid, NOTHING_SAID);

export const AnnotationInput = z
  .object({ sessionId: z.string().min(1).max(64), ...fields })
  .refine(somethingSaid, NOTHING_SAID);
export type AnnotationInput = z.infer<typeof AnnotationInput>;

/** An annotation as pages and the API show it. */
export function presentAnnotation(a: AnnotationRow) {
  return {
    id: a.id,
    seq: a.seq,
    label: a.label,
    score: a.score,
    comment: a.comment,
    author: a.author,
    createdAt: a.createdAt.toISOString(),
  };
}
export type AnnotationView = ReturnType<typeof presentAnnotation>;

async function sessionSteps(prisma: Db, sessionId: string): Promise<number> {
  const head = await sessionHead(prisma, sessionId);
  if (!head) throw notFound("session", sessionId);
  return head.eventCount;
}

/** A session's annotations, oldest first. */
export async function listAnnotations(principal: Principal, input: { sessionId: string }, prisma: Db) {
  authorize(principal, "sessions.read");
  await sessionSteps(prisma, input.sessionId);
  return (await sessionAnnotations(prisma, input.sessionId)).map(presentAnnotation);
}

/** Adds an annotation signed by the principal; a step must be one of the session's. */
export async function addAnnotation(principal: Principal, input: AnnotationInput, prisma: Db) {
  authorize(principal, "notes.write");
  const steps = await sessionSteps(prisma, input.sessionId);
  const seq = input.seq ?? null;
  if (seq !== null && seq >= steps)
    throw new AppError("invalid_input", `This session has no step ${seq}: its steps are 0 to ${steps - 1}.`, [
      { path: "seq", message: `step must be below ${steps}.` },
    ]);
  const row = await insertAnnotation(prisma, {
    sessionId: input.sessionId,
    seq,
    label: input.label ?? null,
    score: input.score ?? null,
    comment: input.comment ?? null,
    author: principal.name,
    authorId: principal.userId,
  });
  return presentAnnotation(row);
}

/** Removes an annotation: its author's, or any as an admin. */
export async function deleteAnnotation(
  principal: Principal,
  input: { sessionId: string; annotationId: string },
  prisma: Db,
) {
  authorize(principal, "notes.write");
  const row = await findAnnotation(prisma, input.annotationId);
  if (!row || row.sessionId !== input.sessionId) throw notFound("annotation", input.annotationId);
  refuseUnlessAuthor(principal, row, "annotation");
  await removeAnnotation(prisma, row.id);
}
