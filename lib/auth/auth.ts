/**
 * Accounts: Better Auth over the app's Prisma client, mounted at /api/auth/*.
 * Email + password (hashed by the library), sessions in the database,
 * sign-out and password change are the library's; SSO is any OpenID Connect
 * issuer configured by environment variables (genericOAuth + discovery).
 *
 * Users are never created by public sign-up: the first admin comes from the
 * setup link or BRANCHPOINT_ADMIN_EMAIL/PASSWORD, the others from
 * invitations (lib/team) or SSO (who join with BRANCHPOINT_DEFAULT_ROLE).
 */
import { randomBytes } from "node:crypto";
import { betterAuth } from "better-auth";
import { APIError } from "better-auth/api";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { genericOAuth } from "better-auth/plugins";
import type { Db } from "@/lib/db";
import { recordAudit } from "@/lib/db/audit";
import { env } from "@/lib/env";

export const OIDC_PROVIDER_ID = "oidc";
/** Failed or not, sign-in attempts allowed per client address in a minute. */
export const SIGN_IN_LIMIT = { window: 60, max: 10 };

/** The signing secret: BRANCHPOINT_AUTH_SECRET, else one made on first start and kept in the database. */
export async function authSecret(prisma: Db): Promise<string> {
  const fromEnv = env().BRANCHPOINT_AUTH_SECRET;
  if (fromEnv) return fromEnv;
  const existing = await prisma.appSetting.findUnique({ where: { key: "auth_secret" } });
  if (existing) return existing.value;
  const value = randomBytes(32).toString("base64url");
  await prisma.appSetting.upsert({ where: { key: "auth_secret" }, create: { key: "auth_secret", value }, update: {} });
  return (await prisma.appSetting.findUniqueOrThrow({ where: { key: "auth_secret" } })).value;
}

export type AuthOptions = { secret: string; baseURL?: string };

function baseUrlConfig(explicit?: string) {
  const url = explicit ?? env().BRANCHPOINT_PUBLIC_URL;
  if (url) return url;
  // No public URL configured: the host the browser used, when it is this machine.
  return {
    allowedHosts: ["127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*"],
    protocol: "http" as const,
    fallback: `http://127.0.0.1:${process.env.PORT ?? "3000"}`,
  };
}

export function createAuth(prisma: Db, options: AuthOptions) {
  const settings = env();
  const oidc =
    settings.BRANCHPOINT_OIDC_ISSUER && settings.BRANCHPOINT_OIDC_CLIENT_ID
      ? [
          genericOAuth({
            config: [
              {
                providerId: OIDC_PROVIDER_ID,
                name: settings.BRANCHPOINT_OIDC_NAME,
                discoveryUrl: `${settings.BRANCHPOINT_OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`,
                clientId: settings.BRANCHPOINT_OIDC_CLIENT_ID,
                clientSecret: settings.BRANCHPOINT_OIDC_CLIENT_SECRET ?? "",
                scopes: ["openid", "email", "profile"],
                pkce: true,
                requireIdTokenVerification: true,
              },
            ],
          }),
        ]
      : [];
  return betterAuth({
    appName: "Branchpoint",
    baseURL: baseUrlConfig(options.baseURL),
    secret: options.secret,
    database: prismaAdapter(prisma, { provider: "postgresql" }),
    telemetry: { enabled: false },
    user: {
      modelName: "user",
      additionalFields: {
        role: { type: "string", required: false, defaultValue: settings.BRANCHPOINT_DEFAULT_ROLE, input: false },
        deactivatedAt: { type: "date", required: false, input: false },
      },
    },
    session: { modelName: "authSession" },
    account: { modelName: "authAccount" },
    verification: { modelName: "authVerification" },
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8, maxPasswordLength: 128 },
    rateLimit: {
      enabled: true,
      window: 60,
      max: 300,
      // In the database, not in this process's memory: several web processes behind one address
      // share one count, and a restart does not reset it.
      storage: "database",
      modelName: "rateLimit",
      customRules: { "/sign-in/email": SIGN_IN_LIMIT },
    },
    databaseHooks: {
      session: {
        create: {
          // A deactivated user cannot start a session, whatever the way in (password or SSO).
          before: async (session) => {
            const user = await prisma.user.findUnique({
              where: { id: session.userId },
              select: { deactivatedAt: true },
            });
            if (!user || user.deactivatedAt) {
              throw new APIError("FORBIDDEN", { message: "This account is deactivated; ask an admin." });
            }
          },
          after: async (session) => {
            const user = await prisma.user.findUnique({
              where: { id: session.userId },
              select: { email: true },
            });
            if (user)
              await recordAudit(prisma, { actorId: session.userId, actorName: user.email, action: "auth.sign_in" });
          },
        },
      },
    },
    plugins: [...oidc],
  });
}

export type Auth = ReturnType<typeof createAuth>;

const globalForAuth = globalThis as unknown as { __branchpointAuth?: Promise<Auth> };

/** The process's one Better Auth instance, over the process's database. */
export function auth(): Promise<Auth> {
  globalForAuth.__branchpointAuth ??= (async () => {
    const { db } = await import("@/lib/db");
    const prisma = await db();
    return createAuth(prisma, { secret: await authSecret(prisma) });
  })().catch((error: unknown) => {
    globalForAuth.__branchpointAuth = undefined;
    throw error;
  });
  return globalForAuth.__branchpointAuth;
}
