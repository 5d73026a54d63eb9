/**
 * Review queues: sessions handed to reviewers. A reviewer works through a queue in the order its sessions were
 * added, taking those assigned to them or to no one; writing an annotation completes an item (done), or they skip
 * it. Every item names who added it and who completed it.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { insertAnnotation, sessionAnnotations } from "@/lib/db/annotations";
import {
  activeUserByEmail,
  existingSessionIds,
  findReviewItem,
  findReviewQueue,
  insertReviewItems,
  insertReviewQueue,
  latestAnnotationBy,
  nextReviewItem,
  queuesHoldingSession,
  removeReviewQueue,
  reviewCounts,
  reviewers,
  reviewItems,
  reviewQueues,
  updateReviewItem as writeReviewItem,
  type ReviewCounts,
  type ReviewItemRow,
  type ReviewQueueRow,
} from "@/lib/db/reviews";
import { withTransaction } from "@/lib/db/transactions";
import { AppError, notFound } from "@/lib/errors";
import { sessionLabel } from "@/lib/session-list/labels";
import { authorize } from "../authz";
import { refuseUnlessAuthor, typedText } from "../notes";
import type { Principal } from "../principal";
import { noteFields, presentAnnotation } from "../sessions/annotations";

/** The most sessions one call adds to a queue. */
export const MAX_REVIEW_ADD = 500;
/** The most items one page of a queue's items holds. */
export const MAX_REVIEW_PAGE = 200;
/** The most labels a queue offers. */
export const MAX_REVIEW_LABELS = 20;

const id = (what: string) =>
  z.string(`${what} must be text.`).min(1, `${what} is empty.`).max(64, `${what} is too long.`);
const blank = (v: unknown) => (v === "" ? null : v);
const email = z.preprocess(
  blank,
  z
    .string("assigneeEmail must be text.")
    .trim()
    .toLowerCase()
    .max(254, "assigneeEmail is at most 254 characters.")
    .nullable()
    .optional(),
);
const STATUSES = ["pending", "done", "skipped"] as const;
const status = z.enum(STATUSES, { message: "status must be pending, done or skipped." });

/** What creating a queue takes (the API's body and the form's). */
export const ReviewQueueBody = z.strictObject({
  name: typedText("name", 100),
  description: z.preprocess(blank, typedText("description", 2000).nullable().optional()),
  labels: z
    .array(typedText("label", 64), "labels must be a list of labels.")
    .max(MAX_REVIEW_LABELS, `At most ${MAX_REVIEW_LABELS} labels.`)
    .optional(),
  askScore: z.boolean("askScore must be true or false.").optional(),
});
export type ReviewQueueBody = z.infer<typeof ReviewQueueBody>;

/** What adding sessions to a queue takes: their ids (at most MAX_REVIEW_ADD) and whom to assign them to. */
export const ReviewItemsBody = z.strictObject({
  sessionIds: z
    .array(id("a session id"), "sessionIds must be a list of session ids.")
    .min(1, "sessionIds is empty: name at least one session.")
    .max(
      MAX_REVIEW_ADD,
      `sessionIds holds more than ${MAX_REVIEW_ADD} sessions: add at most ${MAX_REVIEW_ADD} at a time.`,
    ),
  assigneeEmail: email,
});

/** What changing an item takes: its status, its assignee (null: no one), or both. */
export const ReviewItemPatch = z
  .strictObject({ status: status.optional(), assigneeEmail: email })
  .refine((v) => v.status !== undefined || v.assigneeEmail !== undefined, {
    message: "Give a status (pending, done, skipped) or an assigneeEmail (null: no one).",
    path: ["status"],
  });

export const ReviewItemsQuery = z.strictObject({
  status: status.optional(),
  limit: z.coerce
    .number("limit must be a number.")
    .int("limit must be a whole number.")
    .min(1, "limit must be 1 or more.")
    .max(MAX_REVIEW_PAGE, `limit is at most ${MAX_REVIEW_PAGE}.`)
    .default(50),
  cursor: z.coerce
    .number("cursor must be a number from the previous page's nextCursor.")
    .int("cursor must be a whole number.")
    .min(0, "cursor must be 0 or more.")
    .max(2_147_483_647, "cursor is too large.")
    .optional(),
});

const EMPTY: ReviewCounts = { total: 0, pending: 0, done: 0, skipped: 0, mine: 0 };

export function presentReviewQueue(q: ReviewQueueRow, counts: ReviewCounts) {
  return {
    id: q.id,
    name: q.name,
    description: q.description,
    labels: q.labels,
    askScore: q.askScore,
    createdBy: q.createdBy,
    createdAt: q.createdAt.toISOString(),
    counts,
  };
}
export type ReviewQueueView = ReturnType<typeof presentReviewQueue>;

export function presentReviewItem(i: ReviewItemRow) {
  return {
    id: i.id,
    sessionId: i.sessionId,
    session: {
      label: sessionLabel(i.session),
      agent: i.session.agent.name,
      status: i.session.status,
      outcome: i.session.outcome,
    },
    status: i.status as (typeof STATUSES)[number],
    assignee: i.assignee,
    addedBy: i.addedBy,
    addedAt: i.addedAt.toISOString(),
    completedBy: i.completedBy,
    completedAt: i.completedAt?.toISOString() ?? null,
    annotationId: i.annotationId,
  };
}
export type ReviewItemView = ReturnType<typeof presentReviewItem>;

async function queueOr404(prisma: Db, queueId: string): Promise<ReviewQueueRow> {
  const queue = await findReviewQueue(prisma, queueId);
  if (!queue) throw notFound("review queue", queueId);
  return queue;
}

async function itemOr404(prisma: Db, queueId: string, itemId: string): Promise<ReviewItemRow> {
  const item = await findReviewItem(prisma, itemId);
  if (!item || item.queueId !== queueId) throw notFound("review item", itemId);
  return item;
}

async function countsOf(prisma: Db, principal: Principal, queueId: string): Promise<ReviewCounts> {
  return (await reviewCounts(prisma, [queueId], principal.userId)).get(queueId) ?? EMPTY;
}

/** The team member an email names, or a 400 naming assigneeEmail. */
async function assigneeFor(prisma: Db, email: string | null | undefined) {
  if (!email) return { assignee: null, assigneeId: null };
  const user = await activeUserByEmail(prisma, email);
  if (!user)
    throw new AppError("invalid_input", `No active team member has the email ${email}.`, [
      { path: "assigneeEmail", message: "no active team member has this email." },
    ]);
  return { assignee: user.email, assigneeId: user.id };
}

/** Every queue, newest first, with its counts (`mine`: pending items assigned to the reader). */
export async function listReviewQueues(principal: Principal, _input: unknown, prisma: Db) {
  authorize(principal, "sessions.read");
  const queues = await reviewQueues(prisma);
  const counts = await reviewCounts(
    prisma,
    queues.map((q) => q.id),
    principal.userId,
  );
  return queues.map((q) => presentReviewQueue(q, counts.get(q.id) ?? EMPTY));
}

export async function getReviewQueue(principal: Principal, input: { queueId: string }, prisma: Db) {
  authorize(principal, "sessions.read");
  const queue = await queueOr404(prisma, input.queueId);
  return presentReviewQueue(queue, await countsOf(prisma, principal, queue.id));
}

/** Makes a queue signed by the principal. */
export async function createReviewQueue(principal: Principal, input: ReviewQueueBody, prisma: Db) {
  authorize(principal, "notes.write");
  const body = ReviewQueueBody.parse(input);
  const queue = await insertReviewQueue(prisma, {
    name: body.name,
    description: body.description ?? null,
    labels: [...new Set(body.labels ?? [])],
    askScore: body.askScore ?? false,
    createdBy: principal.name,
    createdById: principal.userId,
  });
  return presentReviewQueue(queue, EMPTY);
}

/** Deletes a queue and its items (not the sessions, nor the annotations that completed them): its maker's, or any as an admin. */
export async function deleteReviewQueue(principal: Principal, input: { queueId: string }, prisma: Db) {
  authorize(principal, "notes.write");
  const queue = await queueOr404(prisma, input.queueId);
  refuseUnlessAuthor(principal, { author: queue.createdBy, authorId: queue.createdById }, "review queue");
  await removeReviewQueue(prisma, queue.id);
}

/** A page of a queue's items in the order they were added; `nextCursor` continues it. */
export async function listReviewItems(
  principal: Principal,
  input: { queueId: string } & Partial<z.infer<typeof ReviewItemsQuery>>,
  prisma: Db,
) {
  authorize(principal, "sessions.read");
  const query = ReviewItemsQuery.parse({ status: input.status, limit: input.limit, cursor: input.cursor });
  const queue = await queueOr404(prisma, input.queueId);
  const rows = await reviewItems(prisma, queue.id, {
    status: query.status,
    after: query.cursor,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  return {
    items: page.map(presentReviewItem),
    nextCursor: rows.length > query.limit ? String(page[page.length - 1]!.position) : null,
  };
}

/**
 * Adds sessions to a queue (each once: one already in it is left as it is), assigned to a team member when named.
 * An unknown session id refuses the whole list (nothing is added).
 */
export async function addReviewItems(
  principal: Principal,
  input: { queueId: string } & z.input<typeof ReviewItemsBody>,
  prisma: Db,
) {
  authorize(principal, "notes.write");
  const body = ReviewItemsBody.parse({ sessionIds: input.sessionIds, assigneeEmail: input.assigneeEmail });
  const queue = await queueOr404(prisma, input.queueId);
  const wanted = [...new Set(body.sessionIds)];
  const found = await existingSessionIds(prisma, wanted);
  const unknown = wanted.filter((s) => !found.has(s));
  if (unknown.length > 0)
    throw new AppError(
      "invalid_input",
      `No session has the id${unknown.length > 1 ? "s" : ""} ${unknown
        .slice(0, 5)
        .map((s) => JSON.stringify(s))
        .join(", ")}${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}: nothing was added.`,
      unknown
        .slice(0, 20)
        .map((s) => ({ path: `sessionIds[${body.sessionIds.indexOf(s)}]`, message: "no such session." })),
    );
  const who = await assigneeFor(prisma, body.assigneeEmail);
  const added = await insertReviewItems(prisma, queue.id, wanted, {
    addedBy: principal.name,
    addedById: principal.userId,
    ...who,
  });
  return { added, alreadyQueued: wanted.length - added, queue: await getReviewQueueCounts(principal, queue, prisma) };
}

async function getReviewQueueCounts(principal: Principal, queue: ReviewQueueRow, prisma: Db) {
  return presentReviewQueue(queue, await countsOf(prisma, principal, queue.id));
}

/**
 * Sets an item's status or assignee. Done needs an annotation the principal wrote on the session (it is recorded as
 * the review); done and skipped are signed with who and when; pending reopens the item.
 */
export async function updateReviewItem(
  principal: Principal,
  input: { queueId: string; itemId: string } & z.input<typeof ReviewItemPatch>,
  prisma: Db,
) {
  authorize(principal, "notes.write");
  const patch = ReviewItemPatch.parse({ status: input.status, assigneeEmail: input.assigneeEmail });
  const item = await itemOr404(prisma, input.queueId, input.itemId);
  const data: Parameters<typeof writeReviewItem>[2] = {};
  if (patch.assigneeEmail !== undefined) Object.assign(data, await assigneeFor(prisma, patch.assigneeEmail));
  if (patch.status === "pending")
    Object.assign(data, {
      status: "pending",
      completedBy: null,
      completedById: null,
      completedAt: null,
      annotationId: null,
    });
  else if (patch.status) {
    let annotationId: string | null = null;
    if (patch.status === "done") {
      const note = await latestAnnotationBy(prisma, item.sessionId, principal);
      if (!note)
        throw new AppError(
          "wrong_state",
          `${principal.name} has not annotated this session yet: write an annotation (a label, a score or a comment) on it, then mark it done.`,
        );
      annotationId = note.id;
    }
    Object.assign(data, {
      status: patch.status,
      completedBy: principal.name,
      completedById: principal.userId,
      completedAt: new Date(),
      annotationId,
    });
  }
  return presentReviewItem(await writeReviewItem(prisma, item.id, data));
}

/** What completing a review from its page takes: the annotation (within the queue's labels and score). */
export const CompleteReviewInput = z.object({
  queueId: id("queueId"),
  itemId: id("itemId"),
  ...noteFields,
});

/** Writes the reviewer's annotation on the item's session and marks the item done with it, in one transaction. */
export async function completeReview(principal: Principal, input: z.input<typeof CompleteReviewInput>, prisma: Db) {
  authorize(principal, "notes.write");
  const body = CompleteReviewInput.parse(input);
  const queue = await queueOr404(prisma, body.queueId);
  const item = await itemOr404(prisma, queue.id, body.itemId);
  const label = body.label ?? null;
  const score = body.score ?? null;
  const comment = body.comment ?? null;
  if (queue.labels.length > 0 && (label === null || !queue.labels.includes(label)))
    throw new AppError("invalid_input", `Choose one of this queue's labels: ${queue.labels.join(", ")}.`, [
      { path: "label", message: "choose one of the queue's labels." },
    ]);
  if (queue.askScore && score === null)
    throw new AppError("invalid_input", "This queue asks for a score.", [{ path: "score", message: "give a score." }]);
  if (label === null && score === null && comment === null)
    throw new AppError("invalid_input", "Give a label, a score or a comment.", [
      { path: "label", message: "Give a label, a score or a comment." },
    ]);
  const done = await withTransaction(prisma, async (tx) => {
    const note = await insertAnnotation(tx, {
      sessionId: item.sessionId,
      seq: null,
      label,
      score,
      comment,
      author: principal.name,
      authorId: principal.userId,
    });
    return writeReviewItem(tx, item.id, {
      status: "done",
      completedBy: principal.name,
      completedById: principal.userId,
      completedAt: new Date(),
      annotationId: note.id,
    });
  });
  return presentReviewItem(done);
}

/**
 * A reviewer's page of a queue: the queue and its counts, the item to review (the one asked for, else the next
 * pending one assigned to the reader or to no one) with its session's annotations, and the queue's first items.
 */
export async function getReviewPage(principal: Principal, input: { queueId: string; itemId?: string }, prisma: Db) {
  authorize(principal, "sessions.read");
  const queue = await queueOr404(prisma, input.queueId);
  const asked = input.itemId ? await findReviewItem(prisma, input.itemId) : null;
  const current =
    asked && asked.queueId === queue.id ? asked : await nextReviewItem(prisma, queue.id, principal.userId);
  const [counts, annotations, items] = await Promise.all([
    countsOf(prisma, principal, queue.id),
    current ? sessionAnnotations(prisma, current.sessionId) : Promise.resolve([]),
    reviewItems(prisma, queue.id, { limit: 100 }),
  ]);
  return {
    queue: presentReviewQueue(queue, counts),
    current: current ? presentReviewItem(current) : null,
    annotations: annotations.map(presentAnnotation),
    items: items.map(presentReviewItem),
  };
}

/** The queues a session may be added to (whether it already is in each), and the team members to assign it to. */
export async function reviewQueueChoices(principal: Principal, input: { sessionId: string }, prisma: Db) {
  authorize(principal, "sessions.read");
  const [queues, holding, people] = await Promise.all([
    reviewQueues(prisma),
    queuesHoldingSession(prisma, input.sessionId),
    reviewers(prisma),
  ]);
  return {
    queues: queues.map((q) => ({ id: q.id, name: q.name, holds: holding.has(q.id) })),
    people: people.map((p) => ({ email: p.email, name: p.name })),
  };
}
