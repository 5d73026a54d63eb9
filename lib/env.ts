import path from "node:path";
import { z } from "zod";
import { parseTrustedProxies } from "@/scripts/client-address.mjs";

/**
 * The server's environment, read and validated once. Nothing else reads
 * process.env for Branchpoint settings. (The browser gets no environment: the
 * client has no settings of its own.)
 */
const ServerEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(
      /^postgres(ql)?:\/\//,
      "must be a postgres:// or postgresql:// URL; leave it unset for the embedded database",
    )
    .optional(),
  BRANCHPOINT_DATA_DIR: z.string().min(1).default(".data"),
  BRANCHPOINT_API_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  BRANCHPOINT_PUBLIC_URL: z.url().optional(),
  BRANCHPOINT_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /**
   * The largest file an import takes (POST /api/v1/sessions, the upload page). JSON Lines, chat logs and arrays
   * of sessions are read as a stream (bounded memory); other shapes are imported whole and stay within
   * BRANCHPOINT_MAX_BODY_BYTES.
   */
  BRANCHPOINT_MAX_IMPORT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
  /** The most a gzip body may inflate to (separate from the body limit: compression ratios reach 1000:1). */
  BRANCHPOINT_MAX_INFLATED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /** The most spans one trace export may carry. */
  BRANCHPOINT_MAX_SPANS: z.coerce.number().int().positive().default(10_000),
  /** Heavy imports (documents, trace exports) run this many at a time; a few more wait, the rest get 429. */
  BRANCHPOINT_IMPORT_CONCURRENCY: z.coerce.number().int().positive().default(2),
  BRANCHPOINT_DEMO_DATA: z.enum(["on", "off"]).default("on"),
  /**
   * Host names (with or without a port) the server answers besides IP
   * literals, localhost and BRANCHPOINT_PUBLIC_URL's host, comma-separated:
   * a DNS-rebinding guard (any other Host header gets 403).
   */
  BRANCHPOINT_ALLOWED_HOSTS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  /** Trust X-Forwarded-Host (only behind a reverse proxy that sets it). */
  BRANCHPOINT_TRUST_PROXY: z.enum(["on", "off"]).default("off"),
  /**
   * Reverse proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For is believed when they are
   * the socket's peer; the client is the right-most hop that is not one of them. Read by scripts/server.mjs.
   */
  BRANCHPOINT_TRUSTED_PROXIES: z
    .string()
    .default("")
    .superRefine((v, ctx) => {
      try {
        parseTrustedProxies(v);
      } catch (error) {
        ctx.addIssue({
          code: "custom",
          message: (error as Error).message.replace(/^BRANCHPOINT_TRUSTED_PROXIES: /, ""),
        });
      }
    }),
  /** The environment variables a model endpoint may send as its key, comma-separated (an admin's allow-list). */
  BRANCHPOINT_MODEL_KEY_VARS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((h) => h.trim())
        .filter(Boolean),
    ),
  /** Signs session cookies; unset, one is made on first start and kept in the database. */
  BRANCHPOINT_AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** With BRANCHPOINT_ADMIN_PASSWORD: the first admin, created at start when there are no users. */
  BRANCHPOINT_ADMIN_EMAIL: z.email().optional(),
  BRANCHPOINT_ADMIN_PASSWORD: z.string().min(8, "must be at least 8 characters").max(128).optional(),
  /** The role of people who join by SSO. */
  BRANCHPOINT_DEFAULT_ROLE: z.enum(["viewer", "analyst", "admin"]).default("viewer"),
  /** SSO over OpenID Connect: the issuer URL (discovery at /.well-known/openid-configuration) and the client. */
  BRANCHPOINT_OIDC_ISSUER: z.url().optional(),
  BRANCHPOINT_OIDC_CLIENT_ID: z.string().min(1).optional(),
  BRANCHPOINT_OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  BRANCHPOINT_OIDC_NAME: z.string().min(1).default("SSO"),
});
export type ServerEnv = z.infer<typeof ServerEnv>;

let cached: ServerEnv | undefined;

export class EnvError extends Error {
  override name = "EnvError";
}

export function env(): ServerEnv {
  if (cached) return cached;
  const parsed = ServerEnv.safeParse(
    Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v !== "")),
  );
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new EnvError(`Invalid environment:\n${lines.join("\n")}`);
  }
  cached = parsed.data;
  return cached;
}

/** For tests that change the environment: the next env() reads it again. */
export function resetEnvCache(): void {
  cached = undefined;
}

export function dataDir(): string {
  return path.resolve(env().BRANCHPOINT_DATA_DIR);
}
