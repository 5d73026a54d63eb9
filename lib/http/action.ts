import { MAX_JSON_DEPTH, valueDepthExcess } from "@/lib/hostile/json";
import { repairLoneSurrogates } from "@/lib/hostile/text";
import { headers } from "next/headers";
import type { z } from "zod";
import { db, type Db } from "@/lib/db";
import { appErrorFromDatabase } from "@/lib/db/errors";
import { AppError, formatIssuePath, issuesFromZod, type AppErrorCode, type Issue } from "@/lib/errors";
import type { Principal } from "@/lib/server/principal";
import { resolvePrincipal } from "./principal";

/** Server actions act for the signed-in user: the session cookie is the one credential they accept. */
async function actingUser(): Promise<Principal> {
  return resolvePrincipal(await headers(), { accept: ["session"] });
}

/** What every server action returns: a tagged result the form can show beside its fields. */
export type ActionResult<T> =
  | { ok: true; data: T }
  | {
      ok: false;
      error: { code: AppErrorCode; message: string; issues: Issue[]; fieldErrors: Record<string, string[]> };
    };

function fieldErrorsOf(issues: Issue[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const i of issues) (out[i.path || "_"] ??= []).push(i.message);
  return out;
}

function failure(error: AppError): ActionResult<never> {
  return {
    ok: false,
    error: { code: error.code, message: error.message, issues: error.issues, fieldErrors: fieldErrorsOf(error.issues) },
  };
}

/**
 * A thin server action: parse the input with its schema, resolve the acting
 * principal, call the operation in lib/server, return a typed result.
 * Expected failures (AppError) come back as `{ ok: false }`; anything else
 * is logged and reported without internals.
 */
export function validatedAction<S extends z.ZodType, T>(
  schema: S,
  fn: (principal: Principal, input: z.infer<S>, prisma: Db) => Promise<T>,
) {
  return async (input: z.input<S>): Promise<ActionResult<T>> => {
    const tooDeep = valueDepthExcess(input);
    if (tooDeep) {
      return failure(
        new AppError(
          "invalid_input",
          `The input nests more than ${MAX_JSON_DEPTH} levels deep; the limit is ${MAX_JSON_DEPTH}.`,
          [{ path: formatIssuePath(tooDeep), message: `nested more than ${MAX_JSON_DEPTH} levels deep` }],
        ),
      );
    }
    // Lone UTF-16 surrogates cannot be stored: repaired to U+FFFD before anything runs (a note, a fixture…).
    const parsed = schema.safeParse(repairLoneSurrogates(input).value);
    if (!parsed.success) {
      return failure(new AppError("invalid_input", "Some fields are not valid.", issuesFromZod(parsed.error)));
    }
    try {
      return { ok: true, data: await fn(await actingUser(), parsed.data, await db()) };
    } catch (error) {
      return failureOf(error);
    }
  };
}

/** What a thrown error becomes in an action's answer: our own errors and known database ones as they are, anything else a 500 that is logged. */
function failureOf(error: unknown) {
  if (error instanceof AppError) return failure(error);
  const fromDb = appErrorFromDatabase(error);
  if (fromDb) return failure(fromDb);
  console.error("Unexpected error in a server action:", error);
  return failure(new AppError("internal_error", "Something went wrong on the server; nothing was changed."));
}

/** An action anyone may call (first-run setup, accepting an invitation): the operation itself checks its token. */
export function publicAction<T>(fn: (input: unknown, prisma: Db) => Promise<T>) {
  return async (input: unknown): Promise<ActionResult<T>> => {
    try {
      return { ok: true, data: await fn(input, await db()) };
    } catch (error) {
      return failureOf(error);
    }
  };
}
