/**
 * The demo data: the τ-bench sample and our own native sessions (prisma/seed),
 * imported as any document is and loaded into an empty database on a first
 * start (instrumentation.ts, `npm run db:seed`), unless BRANCHPOINT_DEMO_DATA
 * is off. A demo file that does not import stops the start: it is ours.
 *
 * Its failures to investigate: five τ-bench runs the benchmark itself scored 0
 * (real recordings), and two constructed Acme Cloud billing runs, labelled
 * `constructed` in their metadata: a stale tool result the agent trusted
 * (billing-stale-invoice) and a tool error it never got past
 * (billing-receipt-failed). The sessions loaded here are marked as demo data,
 * the only data the built-in demo model (lib/executors/demo-model.ts) serves.
 */
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { countSessions, saveImportedSessions, type Db } from "@/lib/db";
import { env } from "@/lib/env";
import { importDocument } from "@/lib/ingest";

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

/** Loads the demo sessions, in one transaction; how many were new. */
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
  const saved = await saveImportedSessions(prisma, sessions, { demo: true });
  return saved.filter((s) => !s.duplicate).length;
}

/** On a first start (no session yet), the demo data, unless BRANCHPOINT_DEMO_DATA is off. */
export async function seedDemoData(prisma: Db): Promise<{ demoSessions: number }> {
  if (env().BRANCHPOINT_DEMO_DATA === "off") return { demoSessions: 0 };
  if ((await countSessions(prisma)) > 0) return { demoSessions: 0 };
  return { demoSessions: await loadDemoData(prisma) };
}
