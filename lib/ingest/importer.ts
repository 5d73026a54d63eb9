import type { JsonInput } from "./json";
import type { ImportedSession, ImportFormat, ImportIssue } from "./types";

/** What `importDocument` tells an importer besides the document itself. */
export type ImportContext = { filename?: string };

/** An importer's answer: every session of the document, or every issue (never part of it). */
export type FormatOutcome = { ok: true; sessions: ImportedSession[] } | { ok: false; issues: ImportIssue[] };

/** An importer's own answer as the registry takes it: the sessions or the issues, nothing else (not its warnings). */
export const formatOutcome = (result: FormatOutcome): FormatOutcome =>
  result.ok ? { ok: true, sessions: result.sessions } : { ok: false, issues: result.issues };

type ImporterBase = {
  format: ImportFormat;
  /** One line for the "accepted formats" message, e.g. `native (Branchpoint session JSON or JSONL)`. */
  label: string;
};

/** An importer of a JSON (or JSON Lines) format: `importDocument` parses the text once for all of them. */
export type JsonImporter = ImporterBase & {
  accepts: "json";
  /** A cheap structural check on the parsed input; must not throw. The first importer that claims the input gets it. */
  detect(input: JsonInput, ctx: ImportContext): boolean;
  import(input: JsonInput, ctx: ImportContext): FormatOutcome;
};

/** An importer of a binary format (OTLP protobuf): it gets the raw bytes. */
export type BytesImporter = ImporterBase & {
  accepts: "bytes";
  /** Consulted only when the input is not JSON text; must not throw. */
  detect(bytes: Uint8Array, ctx: ImportContext): boolean;
  import(bytes: Uint8Array, ctx: ImportContext): FormatOutcome;
  /** What such a file is, for a user whose file was not one (`an OTLP protobuf export: …`). */
  expected: string;
  /** File names that say this format (`.pb`): such a file that is not one is reported as not one. */
  fileName: RegExp;
  /** Why bytes `detect` refused are not of this format, as its decoder found it. */
  whyNot(bytes: Uint8Array): ImportIssue[];
};

export type FormatImporter = JsonImporter | BytesImporter;

/** The records of a JSON input with where each sits: array elements of a document, or lines of JSONL. */
export function recordsOf(input: JsonInput): { value: unknown; line?: number; path: (string | number)[] }[] {
  if (input.shape === "lines") return input.lines.map(({ line, value }) => ({ value, line, path: [] }));
  if (Array.isArray(input.value))
    return input.value.map((value: unknown, index) => ({
      value,
      path: [index],
    }));
  return [{ value: input.value, path: [] }];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The first record of an input (first line, first array element, or the document), for detection. */
export function firstRecord(input: JsonInput): unknown {
  if (input.shape === "lines") return input.lines[0]?.value;
  return Array.isArray(input.value) ? (input.value as unknown[])[0] : input.value;
}
