import type { Db } from "./client";

export async function ensureStartupData(_prisma: Db): Promise<{ demoSessions: number }> {
  return { demoSessions: 0 };
}
