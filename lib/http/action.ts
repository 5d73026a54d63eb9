import { repairLoneSurrogates } from "@/lib/hostile/text";
import type { z } from "zod";
import { db, type Db } from "@/lib/db";
import { MAX_JSON_DEPTH, valueDepthExcess } from "@/lib/hostile/json";
import { ApiError, apiErrorFromDatabase, formatIssuePath, issuesFromZod, type ApiIssue } from "./errors";

/** What every server action returns: a tagged result the form can show beside its fields. */
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; error: { code: string; message: string; issues: ApiIssue[]; fieldErrors: Record<string, string[]> } };

function fieldErrorsOf(issues: ApiIssue[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const i of issues) (out[i.path || "_"] ??= []).push(i.message);
  return out;
}

export function actionFailure(code: string, message: string, issues: ApiIssue[] = []): ActionResult<never> {
  return { ok: false, error: { code, message, issues, fieldErrors: fieldErrorsOf(issues) } };
}

/**
 * A thin server action: parse the input with its schema, call lib/, return a
 * typed result. Expected failures (ApiError) come back as `{ ok: false }`;
 * anything else is logged and reported without internals.
 */
export function validatedAction<S extends z.ZodType, T>(schema: S, fn: (input: z.infer<S>, prisma: Db) => Promise<T>) {
  return async (input: z.input<S>): Promise<ActionResult<T>> => {
    const tooDeep = valueDepthExcess(input);
    if (tooDeep) {
      const path = formatIssuePath(tooDeep);
      return actionFailure(
        "json_too_deep",
        `The input nests more than ${MAX_JSON_DEPTH} levels deep; the limit is ${MAX_JSON_DEPTH}.`,
        [{ path, message: `nested more than ${MAX_JSON_DEPTH} levels deep` }],
      );
    }
    // Lone UTF-16 surrogates cannot be stored: repaired to U+FFFD before anything runs (a note, a fixture…).
    const parsed = schema.safeParse(repairLoneSurrogates(input).value);
    if (!parsed.success) {
      return actionFailure("invalid_input", "Some fields are not valid.", issuesFromZod(parsed.error));
    }
    try {
      return { ok: true, data: await fn(parsed.data, await db()) };
    } catch (error) {
      if (error instanceof ApiError) return actionFailure(error.code, error.message, error.issues);
      const fromDb = apiErrorFromDatabase(error);
      if (fromDb) return actionFailure(fromDb.code, fromDb.message, fromDb.issues);
      console.error("Unexpected error in a server action:", error);
      return actionFailure("internal_error", "Something went wrong on the server; nothing was changed.");
    }
  };
}
