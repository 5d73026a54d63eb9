import type { z } from "zod";
import { db, type Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { authorize, type Permission } from "@/lib/server/authz";
import type { Principal } from "@/lib/server/principal";
import { ApiError, apiErrorFromDatabase, issuesFromZod, type ApiIssue } from "./errors";
import { actionPrincipal } from "./principal";

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
 * typed result. The caller must be signed in with a role that has `permission`
 * (checked before the input is even parsed). Expected failures (ApiError) come back as `{ ok: false }`;
 * anything else is logged and reported without internals.
 */
export function validatedAction<S extends z.ZodType, T>(
  permission: Permission,
  schema: S,
  fn: (input: z.infer<S>, prisma: Db, principal: Principal) => Promise<T>,
) {
  return async (input: z.input<S>): Promise<ActionResult<T>> => {
    try {
      // Signed in and allowed first: a forged call learns nothing about the input it sent.
      const principal = await actionPrincipal();
      authorize(principal, permission);
      const parsed = schema.safeParse(input);
      if (!parsed.success) {
        return actionFailure("invalid_input", "Some fields are not valid.", issuesFromZod(parsed.error));
      }
      return { ok: true, data: await fn(parsed.data, await db(), principal) };
    } catch (error) {
      if (error instanceof AppError) return actionFailure(error.code, error.message, error.issues);
      if (error instanceof ApiError) return actionFailure(error.code, error.message, error.issues);
      const fromDb = apiErrorFromDatabase(error);
      if (fromDb) return actionFailure(fromDb.code, fromDb.message, fromDb.issues);
      console.error("Unexpected error in a server action:", error);
      return actionFailure("internal_error", "Something went wrong on the server; nothing was changed.");
    }
  };
}

/** An action anyone may call (first-run setup, accepting an invitation): the operation itself checks its token. */
export function publicAction<T>(fn: (input: unknown, prisma: Db) => Promise<T>) {
  return async (input: unknown): Promise<ActionResult<T>> => {
    try {
      return { ok: true, data: await fn(input, await db()) };
    } catch (error) {
      if (error instanceof AppError) return actionFailure(error.code, error.message, error.issues);
      console.error("Unexpected error in a server action:", error);
      return actionFailure("internal_error", "Something went wrong on the server; nothing was changed.");
    }
  };
}
