/**
 * The set-up the server-side database tests share: a fresh database on one
 * engine with the demo refund session imported (copies of it under other ids
 * and order numbers, a replay of it), the principals they act as, and the
 * check that an operation was refused. Never used by the app.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect } from "vitest";
import { createApiKey } from "@/lib/db/api-keys";
import type { Db } from "@/lib/db/client";
import { savePolicyByName } from "@/lib/db/policies";
import { withTransaction } from "@/lib/db/transactions";
import { importLongChat } from "@/lib/db/replays-testing";
import { loadDemoData } from "@/lib/server/sessions/demo-data";
import { createTestDatabase, type TestDatabase, type TestEngine } from "@/lib/db/testing";
import { AppError, parseInput, type AppErrorCode } from "@/lib/errors";
import { toolLevelPreset, type Policy } from "@/lib/replay";
import { localAdmin, type Principal } from "./principal";
import * as replayInputs from "./replays/replay-inputs";
import * as replays from "./replays/replays";
import * as sessions from "./sessions/sessions";

/** Every tool and model step answered from the recording. */
export const RECORDED: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: toolLevelPreset("recorded-only"),
};

/** Tools answered from the base run's history (a call it did not make fails the run), models from the recording. */
export const HISTORY: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
};

/** Starts (and, with no worker, runs) a replay from a request body as `by` would send it. */
export function startReplay(prisma: Db, raw: unknown, by: Principal = localAdmin("tester")) {
  return replays.startReplay(by, parseInput(replayInputs.StartReplayInput, raw), prisma);
}

/**
 * A `turns`-turn chat imported and replayed under HISTORY with its first tool
 * result replaced by `value`: every later model input differs from its base
 * event's.
 */
export async function longEditedReplay(prisma: Db, turns: number, value: object = { edited: true }) {
  const { sessionId, events, firstTool } = await importLongChat(prisma, turns);
  const { id } = await startReplay(prisma, {
    sessionId,
    policy: HISTORY,
    edits: [{ seq: firstTool, op: "replace_tool_result", value }],
  });
  return { id, sessionId, events };
}

/** The demo refund session (a native document): looks up order 4821 and refunds it. */
export const REFUND_DOC = readFileSync(
  path.join(process.cwd(), "prisma", "seed", "native", "refund-agent.json"),
  "utf8",
);

/** The refund session under another external id, with another order number everywhere (the model asks for that order). */
export function refundCopy(externalId: string, orderId = "4821", title?: string): string {
  const doc = JSON.parse(REFUND_DOC.replaceAll("4821", orderId)) as { externalId: string; title?: string };
  doc.externalId = externalId;
  if (title !== undefined) doc.title = title;
  return JSON.stringify(doc);
}

/** A signed-in person (analyst unless said otherwise). */
export function user(userId: string, name: string, role: Principal["role"] = "analyst"): Principal {
  return { kind: "user", userId, name, role, readOnly: false };
}

/** Expects the operation to be refused with an AppError (of `code`, when given) and returns it. */
export async function refusal(promise: Promise<unknown>, code?: AppErrorCode): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  if (code !== undefined) expect((error as AppError).code).toBe(code);
  return error as AppError;
}

/** Imports a native document as `by` and returns its one session's id (throws when it does not import). */
export async function importSession(prisma: Db, by: Principal, body: string = REFUND_DOC): Promise<string> {
  const imported = await sessions.importSessions(by, { body, filename: "refund-agent.json" }, prisma);
  if (!imported.ok) throw new Error(`the session did not import: ${JSON.stringify(imported).slice(0, 300)}`);
  return imported.sessions[0]!.id;
}

/** Starts (and runs, inline) a replay of the session as `by`; returns its id. */
export async function replayOf(prisma: Db, by: Principal, sessionId: string, policy: Policy = RECORDED) {
  return (await replays.startReplay(by, parseInput(replayInputs.StartReplayInput, { sessionId, policy }), prisma)).id;
}

/** Saves a policy under `name` (any agent) and returns its version id. */
export async function savePolicy(prisma: Db, name: string, document: Policy): Promise<string> {
  return (await withTransaction(prisma, (tx) => savePolicyByName(tx, { name, agentId: null, document }))).versionId;
}

export interface RefundDatabase<Replayed extends boolean> {
  db: TestDatabase;
  /** The demo refund session, imported by `as`. */
  sessionId: string;
  /** A finished replay of it under RECORDED, when asked for. */
  replayId: Replayed extends true ? string : null;
}

/** A fresh database on `engine` with the demo refund session imported as `as` (and replayed under RECORDED with `replay`). */
export async function refundDatabase<Replayed extends boolean = false>(
  engine: TestEngine,
  opts: { as?: Principal; replay?: Replayed } = {},
): Promise<RefundDatabase<Replayed>> {
  const by = opts.as ?? localAdmin("olga");
  const db = await createTestDatabase(engine);
  const sessionId = await importSession(db.prisma, by);
  const replayId = (
    opts.replay ? await replayOf(db.prisma, by, sessionId) : null
  ) as RefundDatabase<Replayed>["replayId"];
  return { db, sessionId, replayId };
}

/** A fresh database on `engine` with the demo data loaded (as the app loads it on first start). */
export async function demoDatabase(engine: TestEngine): Promise<TestDatabase> {
  const db = await createTestDatabase(engine);
  await loadDemoData(db.prisma);
  return db;
}

/** A viewer: reads everything, changes nothing. */
export const viewer: Principal = { ...localAdmin("reader"), role: "viewer", readOnly: true };

/**
 * API keys for a test's actors: `admin` a script's key with no user (the local admin), and one member per other
 * entry, created with that role (id and name the entry's key, e-mail `<key>@example.test`) and given a key.
 */
export async function keysByRole<Name extends string>(
  prisma: Db,
  members: Record<Name, Principal["role"]>,
): Promise<Record<Name | "admin", string>> {
  const keys = { admin: (await createApiKey(prisma, "script")).key } as Record<Name | "admin", string>;
  for (const [name, role] of Object.entries(members) as [Name, Principal["role"]][]) {
    await prisma.user.create({ data: { id: name, name, email: `${name}@example.test`, role } });
    keys[name] = (await createApiKey(prisma, name, { userId: name })).key;
  }
  return keys;
}
