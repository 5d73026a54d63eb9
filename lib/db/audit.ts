import type { Prisma } from "./generated/client";
import type { Db, DbClient } from "./client";

/** Security-relevant actions recorded in the audit log. */
export const AUDIT_ACTIONS = [
  "auth.sign_in",
  "auth.sign_in_locked",
  "auth.setup",
  "user.invited",
  "user.joined",
  "user.role_changed",
  "user.deactivated",
  "user.reactivated",
  "api_key.created",
  "api_key.revoked",
  "executor.changed",
  "allowed_host.changed",
  "connector.changed",
  "live_call.approved",
  "live_call.rejected",
  "share.created",
  "share.revoked",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = {
  actorId: string | null;
  actorName: string;
  action: AuditAction;
  target?: string | null;
  detail?: Prisma.InputJsonValue;
};

/** Appends one entry; the log is never updated or deleted by the app. */
export async function recordAudit(client: DbClient, entry: AuditEntry): Promise<void> {
  await client.auditEvent.create({
    data: {
      actorId: entry.actorId,
      actorName: entry.actorName,
      action: entry.action,
      target: entry.target ?? null,
      detail: entry.detail ?? {},
    },
  });
}

/**
 * Makes a change and appends its audit entry in one transaction: the log never misses a change that
 * was made, nor names one that was not. `entry` sees the change's result; null records nothing.
 */
export async function auditedChange<T>(
  prisma: Db,
  change: (tx: DbClient) => Promise<T>,
  entry: (result: T) => AuditEntry | null,
): Promise<T> {
  return prisma.$transaction(async (tx) => {
    const result = await change(tx);
    const audited = entry(result);
    if (audited) await recordAudit(tx, audited);
    return result;
  });
}

export type AuditFilter = { action?: string; actor?: string; before?: string; limit?: number };

/** Newest first; `before` is the id of the last entry of the previous page. */
export async function listAudit(client: DbClient, filter: AuditFilter = {}) {
  const limit = Math.min(Math.max(filter.limit ?? 100, 1), 500);
  const where: Prisma.AuditEventWhereInput = {};
  if (filter.action) where.action = filter.action;
  if (filter.actor) where.actorName = { contains: filter.actor, mode: "insensitive" };
  if (filter.before) {
    const anchor = await client.auditEvent.findUnique({ where: { id: filter.before }, select: { createdAt: true } });
    if (anchor) {
      where.OR = [{ createdAt: { lt: anchor.createdAt } }, { createdAt: anchor.createdAt, id: { lt: filter.before } }];
    }
  }
  const rows = await client.auditEvent.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
  });
  return { events: rows.slice(0, limit), nextCursor: rows.length > limit ? (rows[limit - 1]?.id ?? null) : null };
}
