import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { importDocument } from "@/lib/ingest";
import { env } from "@/lib/env";
import { registerEnvApiKey } from "./api-keys";
import type { Db } from "./client";
import { compactStoredInputs } from "./compact-stored";
import { saveImportedSessions } from "./session-save";

export const SEED_DIR = path.join(process.cwd(), "prisma", "seed");

/** The demo documents: the τ-bench sample and our own native sessions. */
export async function demoDocuments(): Promise<{ file: string; text: string }[]> {
  const files = [path.join(SEED_DIR, "tau-bench", "gpt-4o-airline.sample.json")];
  const nativeDir = path.join(SEED_DIR, "native");
  for (const name of (await readdir(/*turbopackIgnore: true*/ nativeDir).catch(() => [])).sort()) {
    if (name.endsWith(".json") || name.endsWith(".jsonl")) files.push(path.join(nativeDir, name));
  }
  return Promise.all(
    files.map(async (file) => ({ file, text: await readFile(/*turbopackIgnore: true*/ file, "utf8") })),
  );
}

/** Loads the demo sessions into an empty database, in one transaction. */
export async function loadDemoData(prisma: Db): Promise<number> {
  const sessions = [];
  for (const { file, text } of await demoDocuments()) {
    const result = importDocument(text, { filename: path.basename(file) });
    if (!result.ok) {
      const first = result.issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`);
      throw new Error(`demo file ${path.relative(process.cwd(), file)} does not import: ${first.join("; ")}`);
    }
    sessions.push(...result.sessions);
  }
  const saved = await saveImportedSessions(prisma, sessions);
  return saved.filter((s) => !s.duplicate).length;
}

/** Run at every start: the environment's API key, and the demo data on a first start. */
// Work a stopped server left running is not marked failed here: it resumes by itself (lib/jobs).
export async function ensureStartupData(prisma: Db): Promise<{ demoSessions: number }> {
  const settings = env();
  await registerEnvApiKey(prisma, settings.BRANCHPOINT_API_KEY);
  // Runs stored before model inputs were stored once: put in the compact form (a no-op once done).
  await compactStoredInputs(prisma);
  if (settings.BRANCHPOINT_DEMO_DATA === "off") return { demoSessions: 0 };
  if ((await prisma.session.count()) > 0) return { demoSessions: 0 };
  return { demoSessions: await loadDemoData(prisma) };
}
