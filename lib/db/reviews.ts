/** Review queues: sessions handed to reviewers, each item completed by an annotation. */
import { Prisma } from "./generated/client";
import type { DbClient } from "./client";

export type ReviewQueueRow = {
  id: string;
  name: string;
  description: string | null;
  labels: string[];
  askScore: boolean;
  createdBy: string;
  createdById: string | null;
  createdAt: Date;
};

export type ReviewStatus = "pending" | "done" | "skipped";

/** How many items a queue holds, by status, and how many pending ones are the reader's (assigned to them). */
export type ReviewCounts = { total: number; pending: number; done: number; skipped: number; mine: number };

const ITEM_SESSION = {
  select: {
    id: true,
    title: true,
    externalId: true,
    format: true,
    startedAt: true,
    status: true,
    outcome: true,
    agent: { select: { name: true } },
  },
} as const;

export type ReviewItemRow = Prisma.ReviewItemGetPayload<{ include: { session: typeof ITEM_SESSION } }>;

export async function insertReviewQueue(
  client: DbClient,
  data: Omit<ReviewQueueRow, "id" | "createdAt">,
): Promise<ReviewQueueRow> {
  return client.reviewQueue.create({ data });
}

export async function findReviewQueue(client: DbClient, id: string): Promise<ReviewQueueRow | null> {
  return client.reviewQueue.findUnique({ where: { id } });
}

export async function removeReviewQueue(client: DbClient, id: string): Promise<void> {
  await client.reviewQueue.deleteMany({ where: { id } });
}

/** The most queues the list shows (newest first). */
export const MAX_REVIEW_QUEUES = 200;

/** Every queue, newest first, at most MAX_REVIEW_QUEUES. */
export async function reviewQueues(client: DbClient): Promise<ReviewQueueRow[]> {
  return client.reviewQueue.findMany({ orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: MAX_REVIEW_QUEUES });
}

/** Each queue's counts (queues without items are left out: they count zero); `mine` counts items assigned to `userId`. */
export async function reviewCounts(
  client: DbClient,
  queueIds: readonly string[],
  userId: string | null,
): Promise<Map<string, ReviewCounts>> {
  const out = new Map<string, ReviewCounts>();
  if (queueIds.length === 0) return out;
  const rows = await client.$queryRaw<
    { queueId: string; total: bigint; pending: bigint; done: bigint; skipped: bigint; mine: bigint }[]
  >`
    SELECT "queueId", count(*) AS total,
      count(*) FILTER (WHERE "status" = 'pending') AS pending,
      count(*) FILTER (WHERE "status" = 'done') AS done,
      count(*) FILTER (WHERE "status" = 'skipped') AS skipped,
      count(*) FILTER (WHERE "status" = 'pending' AND "assigneeId" IS NOT NULL AND "assigneeId" = ${userId}) AS mine
    FROM "ReviewItem" WHERE "queueId" IN (${Prisma.join(queueIds)}) GROUP BY "queueId"`;
  for (const r of rows)
    out.set(r.queueId, {
      total: Number(r.total),
      pending: Number(r.pending),
      done: Number(r.done),
      skipped: Number(r.skipped),
      mine: Number(r.mine),
    });
  return out;
}

/** Which of these sessions exist. */
export async function existingSessionIds(client: DbClient, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await client.session.findMany({ where: { id: { in: [...ids] } }, select: { id: true } });
  return new Set(rows.map((r) => r.id));
}

/**
 * Adds the sessions to the queue in the order given; a session already in it is left as it is (its status,
 * assignee and who added it). Returns how many were added.
 */
export async function insertReviewItems(
  client: DbClient,
  queueId: string,
  sessionIds: readonly string[],
  by: { addedBy: string; addedById: string | null; assignee: string | null; assigneeId: string | null },
): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const { count } = await client.reviewItem.createMany({
    data: sessionIds.map((sessionId) => ({ queueId, sessionId, ...by })),
    skipDuplicates: true,
  });
  return count;
}

/** A queue's items in the order they were added, from after `cursor` (a position), at most `limit`. */
export async function reviewItems(
  client: DbClient,
  queueId: string,
  opts: { status?: ReviewStatus; after?: number; limit: number },
): Promise<ReviewItemRow[]> {
  return client.reviewItem.findMany({
    where: {
      queueId,
      ...(opts.status ? { status: opts.status } : {}),
      ...(opts.after !== undefined ? { position: { gt: opts.after } } : {}),
    },
    include: { session: ITEM_SESSION },
    orderBy: { position: "asc" },
    take: opts.limit,
  });
}

export async function findReviewItem(client: DbClient, id: string): Promise<ReviewItemRow | null> {
  return client.reviewItem.findUnique({ where: { id }, include: { session: ITEM_SESSION } });
}

/** The first pending item (in the order added) assigned to `userId` or to no one. */
export async function nextReviewItem(
  client: DbClient,
  queueId: string,
  userId: string | null,
): Promise<ReviewItemRow | null> {
  return client.reviewItem.findFirst({
    where: {
      queueId,
      status: "pending",
      OR: userId === null ? [{ assigneeId: null }] : [{ assigneeId: userId }, { assigneeId: null }],
    },
    include: { session: ITEM_SESSION },
    orderBy: { position: "asc" },
  });
}

/** The queues a session is in (for its page's "Add to review queue"). */
export async function queuesHoldingSession(client: DbClient, sessionId: string): Promise<Set<string>> {
  const rows = await client.reviewItem.findMany({ where: { sessionId }, select: { queueId: true } });
  return new Set(rows.map((r) => r.queueId));
}

export async function updateReviewItem(
  client: DbClient,
  id: string,
  data: Prisma.ReviewItemUncheckedUpdateInput,
): Promise<ReviewItemRow> {
  return client.reviewItem.update({ where: { id }, data, include: { session: ITEM_SESSION } });
}

/** The newest annotation this person wrote on the session (by account; without one, by name), or null. */
export async function latestAnnotationBy(
  client: DbClient,
  sessionId: string,
  who: { userId: string | null; name: string },
): Promise<{ id: string } | null> {
  return client.annotation.findFirst({
    where: { sessionId, ...(who.userId !== null ? { authorId: who.userId } : { authorId: null, author: who.name }) },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { id: true },
  });
}

/** Active team members a queue's items may be assigned to, by email. */
export async function reviewers(client: DbClient): Promise<{ id: string; email: string; name: string }[]> {
  return client.user.findMany({
    where: { deactivatedAt: null },
    orderBy: { email: "asc" },
    select: { id: true, email: true, name: true },
    take: 500,
  });
}

export async function activeUserByEmail(
  client: DbClient,
  email: string,
): Promise<{ id: string; email: string } | null> {
  return client.user.findFirst({ where: { email, deactivatedAt: null }, select: { id: true, email: true } });
}
