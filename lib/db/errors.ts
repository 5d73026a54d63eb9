import { AppError } from "@/lib/errors";

/** PostgreSQL's codes for text it cannot store: U+0000 in text (22021) or in JSON (22P05). */
const UNSTORABLE_TEXT_CODES = new Set(["22021", "22P05"]);

function driverErrorCode(error: unknown): string | undefined {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta;
  const code = meta?.driverAdapterError?.cause?.originalCode;
  return typeof code === "string" ? code : undefined;
}

/**
 * A database error that bad input caused, as the AppError it deserves; null
 * for anything else. Read from the error codes Prisma and the driver report,
 * never from message text. The transaction that raised it has rolled back.
 */
export function appErrorFromDatabase(error: unknown): AppError | null {
  const code = driverErrorCode(error);
  if (code && UNSTORABLE_TEXT_CODES.has(code)) {
    return new AppError(
      "unstorable_text",
      "The input contains a NUL character (\\u0000), which the database cannot store; remove it and send again. Nothing was written.",
    );
  }
  if ((error as { code?: unknown } | null)?.code === "P2002") {
    return new AppError(
      "conflict",
      "Something with the same identity was written at the same moment; send the request again.",
    );
  }
  return null;
}
