/**
 * The first of an import's two reads of a large input: it checks the JSON of every piece (so a malformed file
 * is refused before anything is written), keeps what is small (a document's members, its small arrays, the
 * first record) and says how the second read imports it. Pure over the chunks it is given.
 */
import { detectJsonImporter } from "../detect";
import { isRecord, type FormatImporter, type ImportContext, type JsonImporter } from "../importer";
import type { JsonInput } from "../json";
import type { ImportFormat, ImportIssue } from "../types";
import { documentPieces, linesOf, parsePiece, StreamSyntaxError, type Top } from "./scan";

/** How much of a document's arrays the survey keeps whole (their elements' text); a larger array is streamed. */
const KEPT_ARRAY_CHARS = 1_000_000;

/**
 * How the second read goes:
 * - `conversation`: one chat log, its messages streamed (`messages` of a document, a top-level array of
 *   messages, or JSON Lines of messages); `header` is the document without its messages.
 * - `native`: one native session document, its events streamed; `header` is the document without its events,
 *   `headerChars` the length of its text (it is held whole).
 * - `records`: independent records (JSON Lines, or a top-level array), each imported by `importer` on its own.
 * - `whole`: a shape that is not read as a stream (imported whole, within the whole-document limit).
 * - `malformed`: the JSON is broken at `issues`, found before anything was written.
 */
export type Survey =
  | { kind: "conversation"; shape: "document" | "array" | "lines"; header: Record<string, unknown> }
  | { kind: "native"; header: Record<string, unknown>; headerChars: number }
  | { kind: "records"; shape: "array" | "lines"; importer: JsonImporter }
  | { kind: "whole"; why: string }
  | { kind: "malformed"; issues: ImportIssue[]; summary: string };

const looksLikeMessage = (value: unknown) => isRecord(value) && typeof value.role === "string";
/** The formats whose records import on their own: a native session, a chat log or τ-bench trajectory, a Langfuse trace. */
const RECORD_FORMATS: readonly ImportFormat[] = ["native", "openai-chat", "langfuse"];

export async function survey(
  chunks: () => AsyncIterable<string>,
  importers: readonly FormatImporter[],
  ctx: ImportContext & { format?: ImportFormat },
): Promise<Survey> {
  const seen: { top: Top | null } = { top: null };
  // A Map, not a plain object: a member named "__proto__" stays a member (JSON.parse keeps it as an own key).
  const members = new Map<string, unknown>();
  /** The text of each top-level member (an array's elements summed). */
  const memberChars = new Map<string, number>();
  const arrays = new Map<string, { items: unknown[]; chars: number; streamed: boolean }>();
  let first: unknown = undefined;
  let jsonLines = false;
  try {
    for await (const piece of documentPieces(chunks(), (t) => (seen.top = t))) {
      const value = parsePiece(piece.text, piece.line, piece.column, piece.key === null ? 1 : 2);
      if (piece.key === null) {
        if (piece.index === 0) first = value;
        continue;
      }
      memberChars.set(piece.key, (memberChars.get(piece.key) ?? 0) + piece.text.length);
      if (piece.index === null) {
        members.set(piece.key, value);
        continue;
      }
      let array = arrays.get(piece.key);
      if (!array) arrays.set(piece.key, (array = { items: [], chars: 0, streamed: false }));
      if (array.streamed) continue;
      array.chars += piece.text.length;
      if (array.items.length > 0 && array.chars > KEPT_ARRAY_CHARS) {
        array.streamed = true;
        array.items.length = 1;
      } else array.items.push(value);
    }
  } catch (error) {
    if (!(error instanceof StreamSyntaxError)) throw error;
    // A one-line object followed by more: JSON Lines.
    if (seen.top === "object" && error.reason.includes("after the end of the JSON value")) jsonLines = true;
    else return malformed(error);
  }
  if (jsonLines) return surveyLines(chunks, importers, ctx);
  if (seen.top === "array") {
    if (first === undefined) return { kind: "whole", why: "an empty array" };
    return decide("array", first, importers, ctx);
  }
  // A document: its skeleton (members, small arrays whole, large ones by their first element) decides.
  // A key written both as a member and as an array is left out. Object.fromEntries defines own properties, so
  // "__proto__" stays a key here too.
  const skeleton: Record<string, unknown> = Object.fromEntries([
    ...[...members].filter(([key]) => !arrays.has(key)),
    ...[...arrays].filter(([key]) => !members.has(key)).map(([key, array]) => [key, array.items] as const),
  ]);
  const input: JsonInput = { shape: "document", value: skeleton };
  const importer = pick(input, importers, ctx);
  if (importer?.format === "openai-chat" && Array.isArray(skeleton.messages) && !("traj" in skeleton)) {
    const { messages: _messages, ...header } = skeleton;
    const streamedOther = [...arrays].some(([key, a]) => a.streamed && key !== "messages");
    if (!streamedOther) return { kind: "conversation", shape: "document", header };
  }
  if (importer?.format === "native" && Array.isArray(skeleton.events)) {
    const { events: _events, ...header } = skeleton;
    const streamedOther = [...arrays].some(([key, a]) => a.streamed && key !== "events");
    const headerChars = [...memberChars].reduce((n, [key, chars]) => (key === "events" ? n : n + chars), 0);
    if (!streamedOther) return { kind: "native", header, headerChars };
  }
  return { kind: "whole", why: importer ? `a ${importer.format} document` : "a document of no streamed format" };
}

async function surveyLines(
  chunks: () => AsyncIterable<string>,
  importers: readonly FormatImporter[],
  ctx: ImportContext & { format?: ImportFormat },
): Promise<Survey> {
  const issues: ImportIssue[] = [];
  let first: unknown = undefined;
  let count = 0;
  for await (const { line, text } of linesOf(chunks())) {
    try {
      const value = parsePiece(text, line, 1, 1);
      if (count === 0) first = value;
    } catch (error) {
      if (!(error instanceof StreamSyntaxError)) throw error;
      if (issues.length < 100)
        issues.push({ path: `line ${line}`, message: `malformed JSON at column ${error.column}: ${error.reason}` });
    }
    count++;
  }
  if (issues.length > 0) {
    const summary = `Malformed JSON Lines: ${issues.length === 1 ? "1 line is" : `${issues.length}${issues.length === 100 ? " or more" : ""} lines are`} not valid JSON, the first at ${issues[0]!.path}.`;
    return { kind: "malformed", issues, summary };
  }
  return decide("lines", first, importers, ctx);
}

function decide(
  shape: "array" | "lines",
  first: unknown,
  importers: readonly FormatImporter[],
  ctx: ImportContext & { format?: ImportFormat },
): Survey {
  if (looksLikeMessage(first) && (ctx.format === undefined || ctx.format === "openai-chat"))
    return { kind: "conversation", shape, header: {} };
  const input: JsonInput =
    shape === "lines" ? { shape: "lines", lines: [{ line: 1, value: first }] } : { shape: "document", value: [first] };
  const importer = pick(input, importers, ctx);
  if (importer && RECORD_FORMATS.includes(importer.format)) return { kind: "records", shape, importer };
  return { kind: "whole", why: importer ? `${importer.format} records` : "records of no streamed format" };
}

function pick(input: JsonInput, importers: readonly FormatImporter[], ctx: ImportContext & { format?: ImportFormat }) {
  if (ctx.format !== undefined) {
    const named = importers.find((i): i is JsonImporter => i.format === ctx.format && i.accepts === "json");
    return named ?? null;
  }
  return detectJsonImporter(input, importers, ctx);
}

function malformed(error: StreamSyntaxError): Survey {
  return {
    kind: "malformed",
    summary: `Malformed JSON at line ${error.line}, column ${error.column}: ${error.reason}.`,
    issues: [{ path: "", message: error.message }],
  };
}
