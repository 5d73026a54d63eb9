/**
 * An import read as a stream: a chat log, one native session, JSON Lines, or an array of records, read twice from a re-readable
 * source (the request body spooled to a file, or bytes in memory). The first read (lib/ingest/stream/survey.ts)
 * checks every piece's JSON and decides; the second converts a piece at a time and writes windows of events
 * in ONE transaction, so a bad record at any point (a schema error in the 5,000th message) leaves nothing
 * written. What it holds: one piece, one window of events, the latest model call's message hashes. Other
 * shapes (OTLP, the Agents SDK export) are imported whole, within the whole-document limit.
 */
import type { Db } from "@/lib/db";
import { beginSessionStream, importedBefore, type SessionHead } from "@/lib/db/session-import-stream";
import type { SavedSession } from "@/lib/db/session-save";
import { sqlTransaction, type SqlTx } from "@/lib/db/sql";
import { AppError } from "@/lib/errors";
import { checkStorableEvent, checkStorableTotals, storableSessions, MAX_KEY_CHARS } from "@/lib/hostile/storable";
import { repairLoneSurrogates } from "@/lib/hostile/text";
import { importers as defaultImporters, type ImportFormat, type ImportIssue, type JsonImporter } from "@/lib/ingest";
import { inputCompactor } from "@/lib/sessions/inputs";
import { zodIssues, type Location } from "@/lib/ingest/issues";
import { firstUserText, stringField } from "@/lib/ingest/openai-chat";
import { ChatDocument, ChatMessage } from "@/lib/ingest/openai-chat-shapes";
import { ChatStream, type StreamDraft, type StreamEvent } from "@/lib/ingest/stream/chat";
import { NativeStream, nativeStreamHead } from "@/lib/ingest/stream/native";
import { documentPieces, linesOf, parsePiece, utf8Chunks, InvalidUtf8 } from "@/lib/ingest/stream/scan";
import { survey, type Survey } from "@/lib/ingest/stream/survey";
import { importAndSave, type ImportedDocumentResult } from "./imports";

/** Bytes that can be read more than once: a spooled request body, or a document in memory. */
export type ByteSource = { size: number; chunks(): AsyncIterable<Uint8Array> | Iterable<Uint8Array> };

export function bytesSource(body: string | Uint8Array): ByteSource {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  return {
    size: bytes.byteLength,
    *chunks() {
      for (let at = 0; at < bytes.byteLength; at += 1 << 20) yield bytes.subarray(at, at + (1 << 20));
    },
  };
}

export type StreamImportOptions = {
  format?: ImportFormat;
  filename?: string;
  /** The largest input imported whole (shapes not read as a stream): BRANCHPOINT_MAX_BODY_BYTES. */
  wholeLimit: number;
  /** Told the events written so far after each window. */
  onProgress?: (progress: { events: number }) => void;
};

/** Events per window: one multi-row insert (or a few, at about 4 MB of JSON each). */
export const EVENT_WINDOW = 1000;
const MAX_ISSUES = 100;

/** Thrown inside the transaction to roll it back: the input had issues. */
class Refused extends Error {
  constructor(readonly issues: ImportIssue[]) {
    super("refused");
  }
}

export async function importStream(
  prisma: Db,
  source: ByteSource,
  opts: StreamImportOptions,
): Promise<ImportedDocumentResult> {
  const chunks = () => utf8Chunks(source.chunks());
  let plan: Survey;
  try {
    plan = await survey(chunks, defaultImporters, {
      ...(opts.filename !== undefined ? { filename: opts.filename } : {}),
      ...(opts.format !== undefined ? { format: opts.format } : {}),
    });
  } catch (error) {
    if (!(error instanceof InvalidUtf8)) throw error;
    plan = { kind: "whole", why: "not UTF-8 text" };
  }
  // Small inputs that are not read as a stream, or whose JSON is broken, get the whole-document import's own
  // answers (it locates errors and tries every format); large ones are refused here.
  if (plan.kind === "whole" || (plan.kind === "malformed" && source.size <= opts.wholeLimit)) {
    if (source.size > opts.wholeLimit)
      throw new AppError(
        "payload_too_large",
        `The file is ${source.size} bytes, ${plan.kind === "whole" ? plan.why : "not JSON"}: only JSON Lines, an OpenAI chat log, a native session or an array of sessions is read as a stream; anything else is imported whole, up to ${opts.wholeLimit} bytes (BRANCHPOINT_MAX_BODY_BYTES).`,
      );
    const body = await readAll(source);
    return importAndSave(prisma, body, {
      ...(opts.format ? { format: opts.format } : {}),
      ...(opts.filename ? { filename: opts.filename } : {}),
    });
  }
  if (plan.kind === "malformed") return { ok: false, format: null, issues: plan.issues, summary: plan.summary };
  // A native session's fields besides its events are held whole: within the whole-document limit.
  if (plan.kind === "native" && plan.headerChars > opts.wholeLimit)
    throw new AppError(
      "payload_too_large",
      `The session's fields besides its events (title, metadata, tools…) are ${plan.headerChars} characters: they are read whole, up to ${opts.wholeLimit} bytes (BRANCHPOINT_MAX_BODY_BYTES); only the events are read as a stream.`,
    );
  const format: ImportFormat =
    plan.kind === "conversation" ? "openai-chat" : plan.kind === "native" ? "native" : plan.importer.format;
  try {
    // One transaction of plain statements, on the driver's own transaction (see beginSessionStream).
    const sessions = await sqlTransaction(prisma, async (sql) => {
      if (plan.kind === "conversation") return [await writeConversation(sql, chunks, plan, opts)];
      if (plan.kind === "native") return [await writeNative(sql, chunks, plan, opts)];
      return writeRecords(sql, chunks, plan, opts);
    });
    return { ok: true, format, sessions };
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    // A native session small enough to import whole gets the whole import's answer: it also takes events listed
    // out of seq order, which a stream cannot, and words its issues as it always has. Nothing was written.
    if (plan.kind === "native" && source.size <= opts.wholeLimit)
      return importAndSave(prisma, await readAll(source), { format: "native" });
    return { ok: false, format, issues: error.issues };
  }
}

async function readAll(source: ByteSource): Promise<Uint8Array> {
  const out = new Uint8Array(source.size);
  let at = 0;
  for await (const chunk of source.chunks()) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return at === out.byteLength ? out : out.subarray(0, at);
}

/** The pieces of the streamed part: the messages of a chat document, the elements of an array, the lines. */
async function* records(
  chunks: () => AsyncIterable<string>,
  shape: "document" | "array" | "lines",
): AsyncGenerator<{ value: unknown; location: Location }> {
  if (shape === "lines") {
    for await (const { line, text } of linesOf(chunks())) {
      yield { value: parsePiece(text, line, 1, 1), location: { line, path: [] } };
    }
    return;
  }
  for await (const piece of documentPieces(chunks())) {
    if (shape === "document" ? piece.key !== "messages" || piece.index === null : piece.key !== null) continue;
    yield {
      value: parsePiece(piece.text, piece.line, piece.column, shape === "document" ? 2 : 1),
      location: { path: shape === "document" ? ["messages", piece.index!] : [piece.index!] },
    };
  }
}

const ChatHeader = ChatDocument.omit({ messages: true });

async function writeConversation(
  sql: SqlTx,
  chunks: () => AsyncIterable<string>,
  plan: Extract<Survey, { kind: "conversation" }>,
  opts: StreamImportOptions,
): Promise<SavedSession & { title: string | null }> {
  const issues: ImportIssue[] = [];
  const repaired = repairLoneSurrogates(plan.header);
  let repairedCharacters = repaired.replaced;
  const header = ChatHeader.safeParse(repaired.value);
  if (!header.success) throw new Refused(zodIssues(header.error, { path: [] }));
  const doc = header.data;
  const head: SessionHead = {
    externalId: doc.id ?? stringField(doc.metadata, "session_id", "sessionId", "conversation_id") ?? null,
    title: stringField(doc.metadata, "title") ?? null,
    agent: {
      name: stringField(doc.metadata, "agent", "agent_name", "agentName") ?? "openai-chat-agent",
      adapter: "generic",
    },
    agentVersion: {
      version: stringField(doc.metadata, "agent_version", "agentVersion", "version") ?? doc.model ?? "unknown",
      capabilities: [],
    },
    format: "openai-chat",
    startedAt: null,
    endedAt: null,
    metadata: doc.metadata ?? {},
    tools: (doc.tools ?? []).map((tool) => ({
      name: tool.function.name,
      ...(tool.function.parameters !== undefined ? { schema: tool.function.parameters } : {}),
    })),
  };
  const checked = storableSessions([{ ...head, events: [] }]);
  if (!checked.ok) throw new Refused(checked.issues);
  const before = await importedBefore(sql, head.format, head.externalId);
  if (before) return { ...before, title: head.title };

  const messagesAt: Location =
    plan.shape === "lines" ? { path: [] } : { path: plan.shape === "document" ? ["messages"] : [] };
  const chat = new ChatStream(
    {
      ...(doc.model !== undefined ? { model: doc.model } : {}),
      ...(doc.temperature !== undefined ? { temperature: doc.temperature } : {}),
      ...(doc.tools !== undefined ? { tools: doc.tools } : {}),
    },
    messagesAt,
  );
  const session = await beginSessionStream(sql, head, inputCompactor());
  let window: StreamDraft[] = [];
  let written = 0;
  const flush = async () => {
    if (issues.length > 0 || chat.issues.length > 0) return;
    for (const e of window)
      if (e.name.length > MAX_KEY_CHARS)
        issues.push({
          path: `events[${e.seq}].name`,
          message: `is ${e.name.length} characters long; the limit is ${MAX_KEY_CHARS}`,
        });
    if (issues.length > 0) return;
    await session.write(window);
    written += window.length;
    window = [];
    opts.onProgress?.({ events: written });
  };
  for await (const record of records(chunks, plan.shape)) {
    const where = record.location;
    const { value, replaced } = repairLoneSurrogates(record.value);
    repairedCharacters += replaced;
    const parsed = ChatMessage.safeParse(value);
    if (!parsed.success) {
      issues.push(...zodIssues(parsed.error, where));
    } else if (issues.length === 0) {
      chat.push(parsed.data, where);
      window.push(...chat.take());
      if (window.length >= EVENT_WINDOW) await flush();
    }
    if (issues.length + chat.issues.length >= MAX_ISSUES) break;
  }
  window.push(...chat.end());
  await flush();
  const all = [...issues, ...chat.issues];
  if (all.length > 0) throw new Refused(all.slice(0, MAX_ISSUES));
  const title = head.title ?? (chat.firstUserMessage ? firstUserText([chat.firstUserMessage]) : null);
  const toolNames = chat.toolNames;
  const tools = [
    ...head.tools,
    ...toolNames.filter((name) => !head.tools.some((t) => t.name === name)).map((name) => ({ name })),
  ];
  const saved = await session.finish({
    title,
    tools,
    metadata: repairedCharacters > 0 ? { ...head.metadata, repairedCharacters } : head.metadata,
  });
  return { ...saved, title };
}

/**
 * One native session document: its fields (the survey's header, wherever they sat in the file), then its events
 * a window at a time, each checked and converted as it is read (lib/ingest/stream/native.ts). Lone surrogates
 * are repaired and counted in each model call's stored form (new messages only), as the whole import counts them.
 */
async function writeNative(
  sql: SqlTx,
  chunks: () => AsyncIterable<string>,
  plan: Extract<Survey, { kind: "native" }>,
  opts: StreamImportOptions,
): Promise<SavedSession & { title: string | null }> {
  const checkedHead = nativeStreamHead(plan.header);
  if (!checkedHead.ok) throw new Refused(checkedHead.issues);
  const { value: head, replaced } = repairLoneSurrogates(checkedHead.head);
  let repairedCharacters = replaced;
  const storable = storableSessions([{ ...head, events: [] }]);
  if (!storable.ok) throw new Refused(storable.issues);
  const before = await importedBefore(sql, head.format, head.externalId);
  if (before) return { ...before, title: head.title };

  const native = new NativeStream(head);
  const issues: ImportIssue[] = [];
  const session = await beginSessionStream(sql, head, inputCompactor());
  const compact = inputCompactor({ digests: false });
  const totals = { inputTokens: 0, outputTokens: 0 };
  let window: StreamEvent[] = [];
  let written = 0;
  let reading = false;
  const flush = async () => {
    await session.write(window);
    written += window.length;
    window = [];
    opts.onProgress?.({ events: written });
  };
  for await (const piece of documentPieces(chunks())) {
    if (piece.key !== "events" || piece.index === null) continue;
    if (piece.index === 0 && reading) {
      issues.push({ path: "events", message: "is given twice in the document" });
      break;
    }
    reading = true;
    const event = native.push(parsePiece(piece.text, piece.line, piece.column, 2), piece.index);
    if (native.full) break;
    if (event === null || native.issues.length > 0 || issues.length > 0) continue;
    const stored = compact(event);
    const fixed = repairLoneSurrogates({ ...event, input: stored.input });
    repairedCharacters += fixed.replaced;
    checkStorableEvent(fixed.value, `events[${piece.index}]`, issues);
    totals.inputTokens += event.usage?.inputTokens ?? 0;
    totals.outputTokens += event.usage?.outputTokens ?? 0;
    window.push({ ...fixed.value, inputPrefix: stored.prefix, cacheKey: null, occurrence: null });
    if (window.length >= EVENT_WINDOW && issues.length === 0) await flush();
  }
  native.end();
  checkStorableTotals(totals, "", issues);
  const all = [...native.issues, ...issues];
  if (all.length > 0) throw new Refused(all.slice(0, MAX_ISSUES));
  await flush();
  // The tools called but not declared are counted as the whole import counts them (their names were repaired in
  // the events already).
  const tools = repairLoneSurrogates(native.tools);
  repairedCharacters += tools.replaced;
  const saved = await session.finish({
    title: head.title,
    tools: tools.value,
    metadata: repairedCharacters > 0 ? { ...head.metadata, repairedCharacters } : head.metadata,
  });
  return { ...saved, title: head.title };
}

async function writeRecords(
  sql: SqlTx,
  chunks: () => AsyncIterable<string>,
  plan: Extract<Survey, { kind: "records" }>,
  opts: StreamImportOptions,
): Promise<(SavedSession & { title: string | null })[]> {
  const issues: ImportIssue[] = [];
  const saved: (SavedSession & { title: string | null })[] = [];
  let written = 0;
  for await (const record of records(chunks, plan.shape)) {
    const outcome = importRecord(
      plan.importer,
      record.value,
      record.location,
      opts.filename !== undefined ? { filename: opts.filename } : {},
    );
    if (!outcome.ok) {
      issues.push(...outcome.issues);
      if (issues.length >= MAX_ISSUES) break;
      continue;
    }
    if (issues.length > 0) continue;
    for (const session of outcome.sessions) {
      const before = await importedBefore(sql, session.format, session.externalId);
      if (before) {
        saved.push({ ...before, title: session.title });
        continue;
      }
      const { events, ...head } = session;
      const stream = await beginSessionStream(sql, head, inputCompactor());
      for (let at = 0; at < events.length; at += EVENT_WINDOW) {
        await stream.write(events.slice(at, at + EVENT_WINDOW));
        written += Math.min(EVENT_WINDOW, events.length - at);
        opts.onProgress?.({ events: written });
      }
      saved.push({ ...(await stream.finish(head)), title: session.title });
    }
  }
  if (issues.length > 0) throw new Refused(issues.slice(0, MAX_ISSUES));
  if (saved.length === 0) throw new Refused([{ path: "", message: "the document holds no sessions" }]);
  return saved;
}

/** One record imported on its own, its issues at its place in the file (`line 3: …`, `[2].events[0]…`). */
function importRecord(importer: JsonImporter, value: unknown, location: Location, ctx: { filename?: string }) {
  const input =
    location.line !== undefined
      ? { shape: "lines" as const, lines: [{ line: location.line, value }] }
      : { shape: "document" as const, value };
  const outcome = importer.import(input, ctx);
  const prefix = (path: string) =>
    location.line !== undefined
      ? path
      : `[${String(location.path[0])}]${path === "" || path.startsWith("[") ? "" : "."}${path}`;
  if (!outcome.ok) return { ok: false as const, issues: outcome.issues.map((i) => ({ ...i, path: prefix(i.path) })) };
  const storable = storableSessions(outcome.sessions);
  if (!storable.ok) return { ok: false as const, issues: storable.issues.map((i) => ({ ...i, path: prefix(i.path) })) };
  return { ok: true as const, sessions: storable.sessions };
}
