import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAuth } from "@/lib/auth/auth";
import { createApiKey, resolveApiKey } from "@/lib/db";
import { createTestDatabase, type TestDatabase } from "@/lib/db/testing";
import { AppError } from "@/lib/errors";
import { CLIENT_ADDRESS_HEADER, SERVER_MARK } from "@/scripts/client-address.mjs";
import {
  acceptInvitation,
  changeRole,
  completeSetup,
  inviteUser,
  prepareFirstRun,
  readAuditLog,
  setDeactivated,
} from "./team";
import type { Principal } from "../principal";

const BASE = "http://127.0.0.1:3999";

async function expectAppError(promise: Promise<unknown>, code: string) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  return error as AppError;
}

describe("team: setup, invitations, roles, deactivation (PGlite)", () => {
  let db: TestDatabase;
  let auth: ReturnType<typeof createAuth>;
  let admin: Principal;

  const signIn = (email: string, password: string, ip = "10.9.9.9") =>
    auth.handler(
      new Request(`${BASE}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE, [CLIENT_ADDRESS_HEADER]: ip },
        body: JSON.stringify({ email, password }),
      }),
    );

  beforeAll(async () => {
    // As under scripts/server.mjs, which sets the client address header from the socket.
    vi.stubEnv(SERVER_MARK, "1");
    db = await createTestDatabase("pglite");
    auth = createAuth(db.prisma, { secret: "test-secret-0123456789-0123456789-abcdef", baseURL: BASE });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await db?.drop();
  });

  it("first run: the setup token creates the first admin once; reusing it is refused and writes nothing", async () => {
    const { setupToken } = await prepareFirstRun(db.prisma);
    expect(setupToken).toMatch(/^[\w-]{20,}$/);
    await expectAppError(
      completeSetup(db.prisma, { token: "wrong", name: "A", email: "a@x.test", password: "password-1" }),
      "forbidden",
    );
    expect(await db.prisma.user.count()).toBe(0);
    const created = await completeSetup(db.prisma, {
      token: setupToken,
      name: "Ada",
      email: "Ada@X.test",
      password: "password-1",
    });
    expect(created.email).toBe("ada@x.test");
    const reused = await expectAppError(
      completeSetup(db.prisma, { token: setupToken, name: "Eve", email: "eve@x.test", password: "password-2" }),
      "wrong_state",
    );
    expect(reused.message).toBe("This setup link was already used: Branchpoint has its admin; sign in instead.");
    expect(await db.prisma.user.findMany({ select: { email: true, role: true } })).toEqual([
      { email: "ada@x.test", role: "admin" },
    ]);
    admin = { kind: "user", userId: created.id, name: created.email, role: "admin", readOnly: false };
  });

  it("signs in with the password; a wrong password and an unknown email get the same answer", async () => {
    const ok = await signIn("ada@x.test", "password-1");
    expect(ok.status).toBe(200);
    expect(ok.headers.get("set-cookie")).toContain("better-auth.session_token=");
    const wrong = await signIn("ada@x.test", "password-x");
    const unknown = await signIn("nobody@x.test", "password-x");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
    const audit = await readAuditLog(db.prisma, admin, { action: "auth.sign_in" });
    expect(audit.events.map((e) => e.actorName)).toEqual(["ada@x.test"]);
  });

  it("rate-limits sign-in: the 11th attempt in a minute from one address is refused with 429", async () => {
    const statuses: number[] = [];
    // A new email each time: only the per-address limit is in play (one email has its own, lib/auth/auth.db.test.ts).
    for (let i = 0; i < 11; i++) statuses.push((await signIn(`limit${i}@x.test`, "bad-password", "10.1.2.3")).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    // Another address is not affected.
    expect((await signIn("ada@x.test", "password-1", "10.1.2.4")).status).toBe(200);
  });

  it("the sign-in limit is shared by every web process on the database, not kept per process", async () => {
    // A second Better Auth instance over the same database stands for a second web process.
    const other = createAuth(db.prisma, { secret: "test-secret-0123456789-0123456789-abcdef", baseURL: BASE });
    let n = 0;
    const attempt = (instance: typeof auth) =>
      instance.handler(
        new Request(`${BASE}/api/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: BASE, [CLIENT_ADDRESS_HEADER]: "10.7.7.7" },
          body: JSON.stringify({ email: `shared${n++}@x.test`, password: "bad-password" }),
        }),
      );
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await attempt(i % 2 === 0 ? auth : other)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    expect((await attempt(other)).status).toBe(429);
    const buckets = await db.prisma.rateLimit.findMany({ where: { key: { contains: "10.7.7.7" } } });
    expect(buckets.map((b) => b.count)).toEqual([10]);
  });

  it("an invitation creates an account with its role once; an expired one is refused and writes nothing", async () => {
    const invite = await inviteUser(db.prisma, admin, { role: "analyst", email: "bo@x.test", expiresInDays: 1 });
    const joined = await acceptInvitation(db.prisma, {
      token: invite.token,
      name: "Bo",
      email: "bo@x.test",
      password: "password-bo",
    });
    expect(joined.role).toBe("analyst");
    await expectAppError(
      acceptInvitation(db.prisma, { token: invite.token, name: "Bo2", email: "bo2@x.test", password: "password-bo" }),
      "wrong_state",
    );
    const stale = await inviteUser(db.prisma, admin, { role: "viewer" });
    await db.prisma.invitation.update({ where: { id: stale.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const users = await db.prisma.user.count();
    const expired = await expectAppError(
      acceptInvitation(db.prisma, { token: stale.token, name: "Cy", email: "cy@x.test", password: "password-cy" }),
      "wrong_state",
    );
    expect(expired.message).toBe("This invitation has expired; ask an admin for a new one.");
    expect(await db.prisma.user.count()).toBe(users);
    // Only admins invite.
    const analyst: Principal = { kind: "user", userId: joined.id, name: "bo@x.test", role: "analyst", readOnly: false };
    await expectAppError(inviteUser(db.prisma, analyst, { role: "admin" }), "forbidden");
  });

  it("role change and deactivation are audited; a deactivated user's sessions end and keys stop", async () => {
    const bo = await db.prisma.user.findUniqueOrThrow({ where: { email: "bo@x.test" } });
    const signedIn = await signIn("bo@x.test", "password-bo", "10.5.5.5");
    expect(signedIn.status).toBe(200);
    const { key } = await createApiKey(db.prisma, "bo's script", { userId: bo.id });
    expect((await resolveApiKey(db.prisma, key))?.userId).toBe(bo.id);

    await changeRole(db.prisma, admin, { userId: bo.id, role: "viewer" });
    await setDeactivated(db.prisma, admin, { userId: bo.id, deactivated: true });
    expect(await db.prisma.authSession.count({ where: { userId: bo.id } })).toBe(0);
    expect(await resolveApiKey(db.prisma, key)).toBeNull();
    const again = await signIn("bo@x.test", "password-bo", "10.5.5.6");
    expect(again.status).toBe(403);

    const log = await readAuditLog(db.prisma, admin, {});
    const byAction = Object.fromEntries(log.events.map((e) => [e.action, e]));
    expect(byAction["user.role_changed"]).toMatchObject({
      actorName: "ada@x.test",
      target: "bo@x.test",
      detail: { from: "analyst", to: "viewer" },
    });
    expect(byAction["user.deactivated"]).toMatchObject({ actorName: "ada@x.test", target: "bo@x.test" });
    expect(byAction["user.invited"]).toMatchObject({ actorName: "ada@x.test" });
    expect(byAction["user.joined"]).toMatchObject({ actorName: "bo@x.test" });
  });

  it("the last admin cannot be demoted", async () => {
    await expectAppError(changeRole(db.prisma, admin, { userId: admin.userId, role: "viewer" }), "wrong_state");
  });
});
