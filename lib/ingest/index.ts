import { storableSessions } from "@/lib/hostile/storable";
// Importers: documents of every supported format → ImportedSession[], every
// event in the one shape the engine reads whatever the source wrote.
// Pure: no database, no Next. The caller writes the sessions in one transaction.
import { detectBytesImporter, detectJsonImporter, unknownFormatIssue } from "./detect";
import type { BytesImporter, FormatImporter, FormatOutcome, ImportContext } from "./importer";
import { decodeText, parseJsonText } from "./json";
import { importers as defaultImporters } from "./registry";
import type { ImportFormat, ImportResult } from "./types";

export * from "./types";
export type { BytesImporter, FormatImporter, FormatOutcome, ImportContext, JsonImporter } from "./importer";
export type { JsonInput } from "./json";
export { decodeText, locateJsonError, parseJsonText } from "./json";
export { formatPath } from "./issues";
export { detectFormat, detectJsonImporter, detectBytesImporter, unknownFormatIssue } from "./detect";
export { importers } from "./registry";
export {
  AssistantMessage,
  NativeEvent,
  NativeSession,
  NativeTool,
  fromNativeSession,
  importNative,
  nativeImporter,
  nativeSessionJsonSchema,
  toNativeSession,
} from "./native";
export { ChatDocument, ChatMessage, TauBenchTrajectory, importOpenAiChat, openAiChatImporter } from "./openai-chat";

export type ImportOptions = {
  /** Skip detection and read the document as this format. */
  format?: ImportFormat;
  /** The uploaded file's name: a hint for some formats (τ-bench file names carry the model). */
  filename?: string;
  /** The importers to use instead of the registry's (tests, or a caller that restricts formats). */
  importers?: readonly FormatImporter[];
};

/**
 * Imports one document of any supported format. All or nothing: the result
 * holds every session, or every issue found (with its exact path) and no
 * session at all.
 */
export function importDocument(text: string | Uint8Array, opts: ImportOptions = {}): ImportResult {
  const importers = opts.importers ?? defaultImporters;
  const ctx: ImportContext = opts.filename !== undefined ? { filename: opts.filename } : {};
  const bytes = () => (typeof text === "string" ? new TextEncoder().encode(text) : text);

  if (opts.format !== undefined) {
    const importer = importers.find((candidate) => candidate.format === opts.format);
    if (!importer) {
      return {
        ok: false,
        format: opts.format,
        issues: [
          {
            path: "",
            message: `format ${JSON.stringify(opts.format)} is not available; available formats: ${importers.map((i) => i.format).join(", ")}`,
          },
        ],
      };
    }
    if (importer.accepts === "bytes") return tagged(importer.format, importer.import(bytes(), ctx));
    const decoded = decodeText(text);
    if (!decoded.ok) return { ok: false, format: importer.format, issues: [decoded.issue] };
    const parsed = parseJsonText(decoded.text);
    if (!parsed.ok) return { ok: false, format: importer.format, issues: parsed.issues };
    return tagged(importer.format, importer.import(parsed.input, ctx));
  }

  const decoded = decodeText(text);
  const parsed = decoded.ok ? parseJsonText(decoded.text) : null;
  if (!parsed?.ok) {
    // Not JSON text: a binary format may claim it.
    const binary = detectBytesImporter(bytes(), importers, ctx);
    if (binary) return tagged(binary.format, binary.import(bytes(), ctx));
    // Bytes that are not text, or a file named as a binary format: say what that format expected and what failed there.
    const named = importers.find(
      (c): c is BytesImporter => c.accepts === "bytes" && c.fileName.test(opts.filename ?? ""),
    );
    const binaryFormat =
      named ?? (decoded.ok ? undefined : importers.find((c): c is BytesImporter => c.accepts === "bytes"));
    if (binaryFormat) {
      return {
        ok: false,
        format: null,
        summary: `Not ${binaryFormat.expected}${decoded.ok ? "" : "; nor is it JSON text (the bytes are not valid UTF-8)"}.`,
        issues: [...binaryFormat.whyNot(bytes()), ...(decoded.ok ? parsed!.issues : [decoded.issue])],
      };
    }
    if (!decoded.ok) return { ok: false, format: null, issues: [decoded.issue] };
    const failed = parsed!;
    return { ok: false, format: null, issues: failed.issues, ...(failed.summary ? { summary: failed.summary } : {}) };
  }
  const importer = detectJsonImporter(parsed.input, importers, ctx);
  if (!importer) return { ok: false, format: null, issues: [unknownFormatIssue(importers)] };
  return tagged(importer.format, importer.import(parsed.input, ctx));
}

/** An importer's outcome, with its sessions checked against what the database can hold (a 400, never a 500 mid-write). */
function tagged(format: ImportFormat, outcome: FormatOutcome): ImportResult {
  if (!outcome.ok) return { ok: false, format, issues: outcome.issues };
  const storable = storableSessions(outcome.sessions);
  return storable.ok
    ? { ok: true, format, sessions: storable.sessions }
    : { ok: false, format, issues: storable.issues };
}
