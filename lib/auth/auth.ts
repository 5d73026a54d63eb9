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
import { APIError, createAuthMiddleware, getIP, isAPIError } from "better-auth/api";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { genericOAuth } from "better-auth/plugins";
import type { Db } from "@/lib/db";
import { recordAudit } from "@/lib/db/audit";
import { getSetting, keepFirstSetting, userDeactivatedAt, userEmail } from "@/lib/db/users";
import { clearSignInFailures, recordSignInFailure, signInLockedUntil } from "@/lib/db/sign-in-failures";
import { env } from "@/lib/env";
import { passwords } from "./password";
import { clientAddressHeaders } from "@/lib/http/client-address";
import { allowedOrigins } from "@/lib/http/origins";

export const OIDC_PROVIDER_ID = "oidc";
/**
 * Failed or not, sign-in attempts allowed per client address in a minute. The
 * address is the one our server takes from the socket (lib/http/client-address.ts),
 * never a header the client wrote. Per email there is a second limit, on
 * failures (lib/db/sign-in-failures.ts), for attempts spread over many addresses.
 */
export const SIGN_IN_LIMIT = { window: 60, max: 10 };

/** The signing secret: BRANCHPOINT_AUTH_SECRET, else one made on first start and kept in the database. */
export async function authSecret(prisma: Db): Promise<string> {
  const fromEnv = env().BRANCHPOINT_AUTH_SECRET;
  if (fromEnv) return fromEnv;
  const existing = await getSetting(prisma, "auth_secret");
  if (existing !== null) return existing;
  return keepFirstSetting(prisma, "auth_secret", randomBytes(32).toString("base64url"));
}

export type AuthOptions = { secret: string; baseURL?: string };

function baseUrlConfig(explicit?: string) {
  const url = explicit ?? env().BRANCHPOINT_PUBLIC_URL;
  if (url) return url;
  // No public URL configured: the address the browser used, when it is this server on this machine. Exactly
  // these origins are trusted; another port on this machine is another service (lib/http/origins.ts).
  const origins = allowedOrigins(undefined);
  return {
    allowedHosts: origins.map((origin) => new URL(origin).host),
    protocol: "http" as const,
    fallback: origins[0]!,
  };
}

const SIGN_IN_PATH = "/sign-in/email";

/** The email a sign-in names, as sign-in compares it (lower-cased); null when the body has none. */
function signInEmail(body: unknown): string | null {
  const email = (body as { email?: unknown } | null)?.email;
  return typeof email === "string" && email.length <= 320 ? email.toLowerCase() : null;
}

function lockedError(until: Date, now = new Date()) {
  const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  const wait = seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  return new APIError(
    "TOO_MANY_REQUESTS",
    { code: "SIGN_IN_LOCKED", message: `Too many failed sign-ins for this email; try again in ${wait}.` },
    { "retry-after": String(seconds) },
  );
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
  const baseURL = baseUrlConfig(options.baseURL);
  return betterAuth({
    appName: "Branchpoint",
    baseURL,
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
    advanced: {
      // Checked in every environment: the library skips it under test runners by default, and then the tests
      // could not show that only our own origins are trusted.
      disableOriginCheck: false,
      // Served over https: the session cookie is Secure (and __Secure- named), never sent in the clear.
      useSecureCookies: typeof baseURL === "string" && baseURL.startsWith("https://"),
      ipAddress: { ipAddressHeaders: clientAddressHeaders() },
    },
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: 8,
      maxPasswordLength: 128,
      password: { hash: (password) => passwords.hash(password), verify: (data) => passwords.verify(data) },
    },
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
    hooks: {
      // The per-email limit. A locked email is refused before its password is checked; the count is kept for
      // any email typed, so known and unknown emails answer alike and do the same work.
      before: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== SIGN_IN_PATH) return;
        const email = signInEmail(ctx.body);
        if (!email) return;
        const until = await signInLockedUntil(prisma, email);
        if (until) throw lockedError(until);
      }),
      after: createAuthMiddleware(async (ctx) => {
        if (ctx.path !== SIGN_IN_PATH) return;
        const email = signInEmail(ctx.body);
        if (!email) return;
        const returned = ctx.context.returned;
        if (!isAPIError(returned)) {
          await clearSignInFailures(prisma, email);
          return;
        }
        if (returned.statusCode !== 401) return;
        const { failures, lockedUntil } = await recordSignInFailure(prisma, email);
        if (!lockedUntil) return;
        await recordAudit(prisma, {
          actorId: null,
          actorName: "sign-in limit",
          action: "auth.sign_in_locked",
          target: email,
          detail: {
            failures,
            lockedUntil: lockedUntil.toISOString(),
            clientAddress: ctx.request ? getIP(ctx.request, ctx.context.options) : null,
          },
        });
      }),
    },
    databaseHooks: {
      session: {
        create: {
          // A deactivated user cannot start a session, whatever the way in (password or SSO).
          before: async (session) => {
            const deactivatedAt = await userDeactivatedAt(prisma, session.userId);
            if (deactivatedAt === undefined || deactivatedAt) {
              throw new APIError("FORBIDDEN", { message: "This account is deactivated; ask an admin." });
            }
          },
          after: async (session) => {
            const email = await userEmail(prisma, session.userId);
            if (email !== null)
              await recordAudit(prisma, { actorId: session.userId, actorName: email, action: "auth.sign_in" });
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
