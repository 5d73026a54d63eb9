import { database } from "@/lib/db";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/lib/db/errors";
import { pingDatabase } from "@/lib/db/health";

/** How long the database may take to answer before health says it is down. */
const HEALTH_TIMEOUT_MS = 3_000;

/**
 * GET /api/health. Ready when the database is open, migrated and seeded, and answers a query
 * now (not only when it was opened). No data in the answer.
 */
export async function healthAnswer(): Promise<Response> {
  try {
    const db = await database();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("the database did not answer in time")), HEALTH_TIMEOUT_MS);
    });
    try {
      await Promise.race([pingDatabase(db.prisma), timeout]);
    } finally {
      clearTimeout(timer);
    }
    return Response.json({ ok: true, engine: db.engine, database: "ok" });
  } catch {
    return Response.json(
      { ok: false, database: "unavailable" },
      { status: 503, headers: { "retry-after": String(DATABASE_RETRY_AFTER_SECONDS), "cache-control": "no-store" } },
    );
  }
}
