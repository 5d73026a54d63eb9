import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/db/errors";
import { JsonTooDeepError, parseJsonBounded } from "@/lib/hostile/json";
import { repairLoneSurrogates } from "@/lib/hostile/text";
import { IMPORT_RETRY_AFTER_SECONDS } from "./heavy";
import { z } from "zod";
import { appErrorFromDatabase } from "@/lib/db/errors";
import { env } from "@/lib/env";
import { AppError, errorBody, issuesFromZod, STATUS } from "@/lib/errors";

/** The JSON answer for an AppError: its code's status and `{ error: { code, message, issues } }`. */
export function jsonError(error: AppError, headers?: HeadersInit): Response {
  return Response.json(errorBody(error.code, error.message, error.issues), {
    status: STATUS[error.code],
    headers: { ...retryAfter(error), ...(headers as Record<string, string> | undefined) },
  });
}

/** Retry-After for the answers a client should retry: the database away (503), too much work at once (429). */
export function retryAfter(error: AppError): Record<string, string> {
  if (error.code === "unavailable") return { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) };
  if (error.code === "busy") return { "retry-after": String(IMPORT_RETRY_AFTER_SECONDS) };
  return {};
}

/**
 * Reads a body within BRANCHPOINT_MAX_BODY_BYTES, counting what arrives: a chunked body declares no length, so the
 * count is what refuses it (413). The proxy never hands over a body cut short of this limit (next.config.js).
 */
/**
 * The next chunk of a request's body. A client that closed the connection mid-upload ("aborted") leaves nobody
 * to answer, but this must stay an ordinary refusal, not an unexpected error logged as a crash.
 */
export async function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  try {
    return await reader.read();
  } catch {
    throw new AppError(
      "invalid_input",
      "The body ended before it was complete (the connection was closed mid-upload); nothing was read from it.",
    );
  }
}

export async function readBodyBytes(request: Request): Promise<Uint8Array> {
  const limit = env().BRANCHPOINT_MAX_BODY_BYTES;
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) {
    throw new AppError(
      "payload_too_large",
      `The body is ${declared} bytes; the limit is ${limit} bytes (BRANCHPOINT_MAX_BODY_BYTES).`,
    );
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await readChunk(reader);
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      // Released, not drained: the rest is never read, and the answer goes out at once.
      await reader.cancel().catch(() => {});
      throw new AppError(
        "payload_too_large",
        `The body is over the limit of ${limit} bytes (BRANCHPOINT_MAX_BODY_BYTES).`,
      );
    }
    chunks.push(value);
  }
  if (Number.isFinite(declared) && size !== declared) {
    throw new AppError(
      "invalid_input",
      `The body ended after ${size} of the ${declared} bytes its Content-Length declares; nothing was read from it.`,
    );
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

/** Parses a JSON body against a schema: 400 with the path of each problem. */
export async function readJson<S extends z.ZodType>(request: Request, schema: S): Promise<z.infer<S>> {
  const contentType = request.headers.get("content-type") ?? "";
  if (contentType && !/^application\/(.+\+)?json\b/i.test(contentType)) {
    throw new AppError(
      "unsupported_media_type",
      `Send JSON with 'Content-Type: application/json' (got '${contentType}').`,
    );
  }
  const text = new TextDecoder().decode(await readBodyBytes(request));
  let value: unknown;
  try {
    value = parseJsonBounded(text);
  } catch (error) {
    if (error instanceof JsonTooDeepError)
      throw new AppError("invalid_input", `The body is refused: ${error.message}.`, [
        { path: "", message: error.message },
      ]);
    throw new AppError("malformed_json", `The body is not valid JSON: ${(error as Error).message}`);
  }
  // Lone UTF-16 surrogates (from a `\ud800` escape) cannot be stored: repaired to U+FFFD before anything runs.
  value = repairLoneSurrogates(value).value;
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new AppError("invalid_input", "The request body is not valid.", issuesFromZod(parsed.error));
  return parsed.data;
}

/** Parses query parameters against a schema: 400 with the name of each bad one. */
export function readQuery<S extends z.ZodType>(request: Request, schema: S): z.infer<S> {
  const params = Object.fromEntries(new URL(request.url).searchParams.entries());
  const parsed = schema.safeParse(params);
  if (!parsed.success)
    throw new AppError("invalid_input", "The query parameters are not valid.", issuesFromZod(parsed.error));
  return parsed.data;
}

/** Any error as its AppError: expected ones as they are, zod and database refusals as 4xx, the rest a logged 500. */
export function toAppError(error: unknown, where: string): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof z.ZodError)
    return new AppError("invalid_input", "The request is not valid.", issuesFromZod(error));
  const fromDb = appErrorFromDatabase(error);
  if (fromDb) return fromDb;
  console.error(`Unexpected error in ${where}:`, error);
  return new AppError("internal_error", "Something went wrong on the server; the request was not completed.");
}

export function errorResponse(error: unknown): Response {
  return jsonError(toAppError(error, "an API route"));
}
