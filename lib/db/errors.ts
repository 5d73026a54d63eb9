import { isDatabaseUnavailable } from "./unavailable";
import { AppError } from "@/lib/errors";

/**
 * PostgreSQL's codes for text it cannot store: U+0000 in text (22021) or in
 * JSON (22P05), a lone UTF-16 surrogate in JSON (22P02). Input is repaired
 * before it gets here; this is the net under that.
 */
const UNSTORABLE_TEXT_CODES = new Set(["22021", "22P05", "22P02"]);
/** Out of range for its column (an integer past 2^31 - 1, a date past 9999). */
const OUT_OF_RANGE_CODES = new Set(["22003", "22008"]);
/** A value too large for an index row (54000). */
const TOO_LARGE_CODES = new Set(["54000"]);

/** Seconds a client should wait before retrying when the database is out of reach. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The SQLSTATE of a database error: where Prisma's driver adapters put it, or on
 * the error itself as the drivers raise it (pg's and PGlite's DatabaseError,
 * from the statements run on the driver's own transaction: ./sql.ts).
 */
function driverErrorCode(error: unknown): string | undefined {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta;
  const code = meta?.driverAdapterError?.cause?.originalCode;
  if (typeof code === "string") return code;
  const raw = error as { code?: unknown; severity?: unknown } | null;
  return typeof raw?.severity === "string" && typeof raw.code === "string" && /^[0-9A-Z]{5}$/.test(raw.code)
    ? raw.code
    : undefined;
}

/**
 * A database error that bad input caused, as the AppError it deserves; null
 * for anything else. Read from the error codes Prisma and the driver report,
 * never from message text. The transaction that raised it has rolled back.
 */
export function appErrorFromDatabase(error: unknown): AppError | null {
  const code = driverErrorCode(error);
  if (isDatabaseUnavailable(error)) {
    return new AppError(
      "unavailable",
      `The database is not reachable right now; nothing was written. Try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds.`,
    );
  }
  if (code && UNSTORABLE_TEXT_CODES.has(code)) {
    return new AppError(
      "unstorable_text",
      "The input contains a character the database cannot store (a NUL, \\u0000, or an unpaired UTF-16 surrogate such as \\ud800); remove it and send again. Nothing was written.",
    );
  }
  if (code && OUT_OF_RANGE_CODES.has(code)) {
    return new AppError(
      "invalid_input",
      "A number or date in the input is out of the range the database holds. Nothing was written.",
    );
  }
  if (code && TOO_LARGE_CODES.has(code)) {
    return new AppError("invalid_input", "A name or id in the input is too long to store. Nothing was written.");
  }
  if ((error as { code?: unknown } | null)?.code === "P2002") {
    return new AppError(
      "conflict",
      "Something with the same identity was written at the same moment; send the request again.",
    );
  }
  return null;
}
