/**
 * The one error type every layer throws for an expected failure (lib/db, the
 * services in lib/server, the adapters in lib/http). It imports nothing from
 * the app, so any module may use it without reaching upward.
 *
 * The codes are a closed list; each has exactly one HTTP status, in STATUS.
 * Only an AppError's message reaches a client; anything else becomes a 500
 * with a generic message (and a log line).
 */
import type { z } from "zod";

/** The HTTP status of each code. Adding a code means adding it here, nowhere else. */
export const STATUS = {
  /** The input does not fit its schema or the state it is about; `issues` say where. */
  invalid_input: 400,
  /** The body is not JSON at all. */
  malformed_json: 400,
  /** An imported document is in no supported format. */
  unknown_format: 400,
  /** A policy document is not valid for where it would run. */
  invalid_policy: 400,
  /** Counterfactual edits that do not fit the session. */
  invalid_edits: 400,
  /** Text with U+0000 or an unpaired surrogate, which the database cannot store. */
  unstorable_text: 400,
  /** The operation needs a live executor (model endpoint) that is not configured. */
  executor_missing: 400,
  /** No valid credentials. */
  unauthorized: 401,
  /** Credentials valid, but the principal may not do this (or the request is cross-site). */
  forbidden: 403,
  /** The thing named does not exist. */
  not_found: 404,
  /** The thing exists but is not in a state that accepts this (nothing pending, not finished, another call waits). */
  wrong_state: 409,
  /** A concurrent write got there first; sending again may succeed. */
  conflict: 409,
  /** The body is over the configured limit. */
  payload_too_large: 413,
  /** A method no route has (TRACE…). */
  method_not_allowed: 405,
  /** Too much work at once (heavy imports); sent with Retry-After. */
  busy: 429,
  /** A content type or encoding the route does not read. */
  unsupported_media_type: 415,
  /** The work ran but failed in something outside the request (an executor, storing its result). */
  run_failed: 502,
  /** A dependency (the database) is unreachable. */
  unavailable: 503,
  /** A bug: never thrown on purpose for input. */
  internal_error: 500,
} as const satisfies Record<string, number>;

export type AppErrorCode = keyof typeof STATUS;

/**
 * The digest a page's error carries when the database is out of reach: Next
 * hides a server error's message from the browser but passes its digest, so the
 * error page can say what happened (see lib/http/page.ts).
 */
export const DATABASE_UNAVAILABLE_DIGEST = "BRANCHPOINT_DATABASE_UNAVAILABLE";

/** One problem with a request, at a path in its body or query. */
export type Issue = { path: string; message: string };

export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly issues: Issue[] = [],
  ) {
    super(message);
  }
  get status(): number {
    return STATUS[this.code];
  }
}

/** The usual 404: `No replay with id "…".` */
export function notFound(what: string, id: string, path?: string): AppError {
  return new AppError("not_found", `No ${what} with id "${id}".`, path ? [{ path, message: `unknown ${what}` }] : []);
}

/** The error body every JSON error answer has. */
export function errorBody(code: AppErrorCode, message: string, issues: Issue[] = []) {
  return { error: { code, message, issues } };
}

/** `events[2].kind`-style paths. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (typeof part === "string" && /^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

/** zod issues as our issues, optionally under a prefix path. */
export function issuesFromZod(error: z.ZodError, prefix: readonly PropertyKey[] = []): Issue[] {
  return error.issues.map((i) => ({ path: formatIssuePath([...prefix, ...i.path]), message: i.message }));
}

/** A 400 for input that failed its schema. */
export function invalidInput(message: string, error: z.ZodError, prefix: readonly PropertyKey[] = []): AppError {
  return new AppError("invalid_input", message, issuesFromZod(error, prefix));
}

/** Parses a value with its schema; an `invalid_input` AppError naming each problem's path otherwise. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  message = "The input is not valid.",
): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalidInput(message, parsed.error);
  return parsed.data;
}
