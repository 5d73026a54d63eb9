import { database } from "@/lib/db";

export const dynamic = "force-dynamic";

/** Ready when the database is open, migrated and seeded. No data in the answer. */
export async function GET() {
  try {
    const db = await database();
    return Response.json({ ok: true, engine: db.engine });
  } catch {
    return Response.json({ ok: false }, { status: 503 });
  }
}
