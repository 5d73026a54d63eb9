/**
 * The team: first-run setup, invitations, roles, deactivation and the audit
 * log. Passwords are hashed by the auth library (Better Auth's scrypt), so a
 * user made here signs in at /api/auth/sign-in/email like any other.
 */
import { randomBytes } from "node:crypto";
import { hashPassword } from "better-auth/crypto";
import { z } from "zod";
import {
  countActiveAdmins,
  consumeSetting,
  countUsers,
  createInvitation,
  createPasswordUser,
  deleteSetting,
  endUserSessions,
  findInvitationByTokenHash,
  findUser,
  findUserIdByEmail,
  hashToken,
  listAudit,
  listOpenInvitations,
  listUsers,
  markInvitationAccepted,
  recordAudit,
  revokeOpenInvitation,
  setSetting,
  setUserDeactivatedAt,
  setUserRole,
  type Db,
  type DbClient,
  type UserRole,
} from "@/lib/db";
import { withTransaction } from "@/lib/db/transactions";
import { AUDIT_ACTIONS } from "@/lib/db/audit";
import { env } from "@/lib/env";
import { AppError, invalidInput } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";

export const ROLES = ["viewer", "analyst", "admin"] as const satisfies readonly UserRole[];
export const RoleSchema = z.enum(ROLES);

const SETUP_KEY = "setup_token_hash";

const NewAccount = z.object({
  name: z.string().trim().min(1, "enter a name").max(200),
  email: z.email("enter an email address").max(320),
  password: z.string().min(8, "use at least 8 characters").max(128, "use at most 128 characters"),
});

export const SetupInput = NewAccount.extend({ token: z.string().min(1, "the setup link's token is missing") });
export const AcceptInvitationInput = NewAccount.extend({
  token: z.string().min(1, "the invitation's token is missing"),
});
export const InviteInput = z.object({
  role: RoleSchema,
  email: z.email("enter an email address").max(320).optional(),
  expiresInDays: z.number().int().min(1).max(30).default(7),
});
export const ChangeRoleInput = z.object({ userId: z.string().min(1), role: RoleSchema });
export const DeactivateInput = z.object({ userId: z.string().min(1), deactivated: z.boolean() });
export const AuditQuery = z.object({
  action: z.enum(AUDIT_ACTIONS).optional(),
  actor: z.string().max(320).optional(),
  cursor: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

function parse<S extends z.ZodType>(schema: S, input: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidInput(`The ${what} is not valid.`, parsed.error);
  return parsed.data;
}

export function needsSetup(prisma: Db): Promise<boolean> {
  return countUsers(prisma).then((n) => n === 0);
}

/**
 * At start: with no users, either create the admin from
 * BRANCHPOINT_ADMIN_EMAIL/PASSWORD, or make a one-time setup token (only its
 * hash is kept) for the caller to print as a link.
 */
export async function prepareFirstRun(prisma: Db): Promise<{ setupToken?: string; createdAdmin?: string }> {
  if ((await countUsers(prisma)) > 0) {
    await deleteSetting(prisma, SETUP_KEY);
    return {};
  }
  const { BRANCHPOINT_ADMIN_EMAIL: email, BRANCHPOINT_ADMIN_PASSWORD: password } = env();
  if (email && password) {
    const passwordHash = await hashPassword(password);
    await withTransaction(prisma, async (tx) => {
      if ((await countUsers(tx)) > 0) return;
      const user = await createPasswordUser(tx, {
        name: email.split("@")[0] || email,
        email,
        role: "admin",
        passwordHash,
      });
      await recordAudit(tx, { actorId: user.id, actorName: user.email, action: "auth.setup", target: user.email });
    });
    return { createdAdmin: email.toLowerCase() };
  }
  const token = randomBytes(24).toString("base64url");
  await setSetting(prisma, SETUP_KEY, hashToken("setup", token));
  return { setupToken: token };
}

/** `/setup?token=…`: creates the first admin. The token works once, and only while there are no users. */
export async function completeSetup(prisma: Db, input: unknown) {
  const data = parse(SetupInput, input, "setup form");
  const passwordHash = await hashPassword(data.password);
  return withTransaction(prisma, async (tx) => {
    // Consuming the token comes first, as one delete: on PostgreSQL concurrent uses of the link ran side by side,
    // each saw no user yet, and three admins were made. The delete locks the token's row, so the others wait for
    // the winner to commit, find the token gone and are refused; if the winner fails, its rollback restores it.
    const consumed = await consumeSetting(tx, SETUP_KEY, hashToken("setup", data.token));
    if ((await countUsers(tx)) > 0) {
      throw new AppError(
        "wrong_state",
        "This setup link was already used: Branchpoint has its admin; sign in instead.",
      );
    }
    if (!consumed) {
      throw new AppError(
        "forbidden",
        "This setup link is not valid; use the one the server printed at its last start.",
        [{ path: "token", message: "not the current setup token" }],
      );
    }
    const user = await createPasswordUser(tx, { name: data.name, email: data.email, role: "admin", passwordHash });
    await recordAudit(tx, { actorId: user.id, actorName: user.email, action: "auth.setup", target: user.email });
    return { id: user.id, email: user.email };
  });
}

export async function inviteUser(prisma: Db, principal: Principal, input: unknown) {
  authorize(principal, "users.manage");
  const data = parse(InviteInput, input, "invitation");
  const token = randomBytes(24).toString("base64url");
  const expiresAt = new Date(Date.now() + data.expiresInDays * 86_400_000);
  return withTransaction(prisma, async (tx) => {
    const row = await createInvitation(tx, {
      tokenHash: hashToken("invitation", token),
      role: data.role,
      email: data.email?.toLowerCase() ?? null,
      expiresAt,
      createdBy: principal.name,
    });
    await recordAudit(tx, {
      actorId: principal.userId,
      actorName: principal.name,
      action: "user.invited",
      target: data.email ?? null,
      detail: { invitationId: row.id, role: data.role, expiresAt: expiresAt.toISOString() },
    });
    return { id: row.id, token, role: row.role, email: row.email, expiresAt };
  });
}

/** What an invitation link offers, for its page (no secret in the answer). */
export async function describeInvitation(prisma: Db, token: string) {
  const row = await findInvitationByTokenHash(prisma, hashToken("invitation", token));
  if (!row) return { state: "unknown" as const };
  if (row.revokedAt) return { state: "revoked" as const };
  if (row.acceptedAt) return { state: "used" as const };
  if (row.expiresAt.getTime() <= Date.now()) return { state: "expired" as const };
  return { state: "open" as const, role: row.role, email: row.email, expiresAt: row.expiresAt };
}

export async function acceptInvitation(prisma: Db, input: unknown) {
  const data = parse(AcceptInvitationInput, input, "account form");
  const passwordHash = await hashPassword(data.password);
  return withTransaction(prisma, async (tx) => {
    const row = await findInvitationByTokenHash(tx, hashToken("invitation", data.token));
    const bad = (message: string): never => {
      throw new AppError("wrong_state", message, [{ path: "token", message }]);
    };
    if (!row)
      throw new AppError("not_found", "This invitation link is not valid.", [
        { path: "token", message: "unknown invitation" },
      ]);
    if (row.revokedAt) bad("This invitation was withdrawn; ask an admin for a new one.");
    if (row.acceptedAt) bad("This invitation was already used; sign in instead.");
    if (row.expiresAt.getTime() <= Date.now()) bad("This invitation has expired; ask an admin for a new one.");
    const email = data.email.toLowerCase();
    if (row.email && row.email !== email) {
      throw new AppError("invalid_input", `This invitation is for ${row.email}.`, [
        { path: "email", message: `use ${row.email}` },
      ]);
    }
    if ((await findUserIdByEmail(tx, email)) !== null) {
      throw new AppError("conflict", "An account with this email exists; sign in instead.", [
        { path: "email", message: "already has an account" },
      ]);
    }
    const user = await createPasswordUser(tx, {
      name: data.name,
      email,
      role: RoleSchema.parse(row.role),
      passwordHash,
    });
    if (!(await markInvitationAccepted(tx, row.id, user.id))) bad("This invitation was already used; sign in instead.");
    await recordAudit(tx, {
      actorId: user.id,
      actorName: user.email,
      action: "user.joined",
      target: user.email,
      detail: { invitationId: row.id, role: row.role, invitedBy: row.createdBy },
    });
    return { id: user.id, email: user.email, role: row.role };
  });
}

export async function listTeam(prisma: Db, principal: Principal) {
  authorize(principal, "users.manage");
  const [users, invitations] = await Promise.all([listUsers(prisma), listOpenInvitations(prisma)]);
  return {
    users: users.map((u) => ({
      id: u.id,
      name: u.name,
      email: u.email,
      role: u.role,
      deactivatedAt: u.deactivatedAt,
      createdAt: u.createdAt,
      signIn: [...new Set(u.accounts.map((a) => (a.providerId === "credential" ? "password" : "sso")))],
    })),
    invitations,
  };
}

export async function revokeInvitation(prisma: Db, principal: Principal, id: string) {
  authorize(principal, "users.manage");
  if (!(await revokeOpenInvitation(prisma, id))) throw new AppError("not_found", `No open invitation with id "${id}".`);
}

async function guardLastAdmin(tx: DbClient, userId: string) {
  const target = await findUser(tx, userId);
  if (!target)
    throw new AppError("not_found", `No user with id "${userId}".`, [{ path: "userId", message: "unknown user" }]);
  return target;
}

export async function changeRole(prisma: Db, principal: Principal, input: unknown) {
  authorize(principal, "users.manage");
  const data = parse(ChangeRoleInput, input, "role change");
  return withTransaction(prisma, async (tx) => {
    const target = await guardLastAdmin(tx, data.userId);
    if (target.role === data.role) return { id: target.id, role: target.role };
    if (target.role === "admin" && !target.deactivatedAt && (await countActiveAdmins(tx)) <= 1) {
      throw new AppError("wrong_state", "This is the only admin; make someone else an admin first.", [
        { path: "role", message: "the last admin keeps the admin role" },
      ]);
    }
    await setUserRole(tx, target.id, data.role);
    await recordAudit(tx, {
      actorId: principal.userId,
      actorName: principal.name,
      action: "user.role_changed",
      target: target.email,
      detail: { from: target.role, to: data.role },
    });
    return { id: target.id, role: data.role };
  });
}

/** Deactivating ends the user's sessions at once and stops their API keys (checked on every request). */
export async function setDeactivated(prisma: Db, principal: Principal, input: unknown) {
  authorize(principal, "users.manage");
  const data = parse(DeactivateInput, input, "request");
  return withTransaction(prisma, async (tx) => {
    const target = await guardLastAdmin(tx, data.userId);
    if (data.deactivated && target.id === principal.userId) {
      throw new AppError("wrong_state", "You cannot deactivate your own account.", [
        { path: "userId", message: "yourself" },
      ]);
    }
    if (data.deactivated && target.role === "admin" && !target.deactivatedAt && (await countActiveAdmins(tx)) <= 1) {
      throw new AppError("wrong_state", "This is the only admin; make someone else an admin first.");
    }
    if (Boolean(target.deactivatedAt) === data.deactivated) return { id: target.id, deactivated: data.deactivated };
    await setUserDeactivatedAt(tx, target.id, data.deactivated ? new Date() : null);
    if (data.deactivated) await endUserSessions(tx, target.id);
    await recordAudit(tx, {
      actorId: principal.userId,
      actorName: principal.name,
      action: data.deactivated ? "user.deactivated" : "user.reactivated",
      target: target.email,
    });
    return { id: target.id, deactivated: data.deactivated };
  });
}

export async function readAuditLog(prisma: Db, principal: Principal, query: unknown) {
  authorize(principal, "audit.read");
  const q = parse(AuditQuery, query, "query");
  return listAudit(prisma, { action: q.action, actor: q.actor, before: q.cursor, limit: q.limit });
}

export { findUser };
