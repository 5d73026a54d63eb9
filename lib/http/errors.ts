import type { z } from "zod";

/** One problem with a request, at a path in its body or query. */
export type ApiIssue = { path: string; message: string };

/**
 * An expected failure with its HTTP status. Only these messages reach a
 * client; anything else becomes a 500 with a generic message (and a log line).
 */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly issues: ApiIssue[] = [],
  ) {
    super(message);
  }
}

/** zod issues as API issues: `events[2].kind`-style paths. */
export function issuesFromZod(error: z.ZodError): ApiIssue[] {
  return error.issues.map((i) => ({ path: formatIssuePath(i.path), message: i.message }));
}

export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (typeof part === "string" && /^[A-Za-z_$][\w$]*$/.test(part)) out += out ? `.${part}` : part;
    else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

export function errorBody(code: string, message: string, issues: ApiIssue[] = []) {
  return { error: { code, message, issues } };
}
