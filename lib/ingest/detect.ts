import type { FormatImporter, ImportContext, JsonImporter, BytesImporter } from "./importer";
import type { JsonInput } from "./json";
import type { ImportFormat, ImportIssue } from "./types";

/** The importer for a parsed JSON input: the first in `importers` whose `detect` claims it. */
export function detectJsonImporter(
  input: JsonInput,
  importers: readonly FormatImporter[],
  ctx: ImportContext = {},
): JsonImporter | null {
  for (const importer of importers) {
    if (importer.accepts === "json" && safely(() => importer.detect(input, ctx))) return importer;
  }
  return null;
}

/** The importer for input that is not JSON text (OTLP protobuf), if one claims it. */
export function detectBytesImporter(
  bytes: Uint8Array,
  importers: readonly FormatImporter[],
  ctx: ImportContext = {},
): BytesImporter | null {
  for (const importer of importers) {
    if (importer.accepts === "bytes" && safely(() => importer.detect(bytes, ctx))) return importer;
  }
  return null;
}

/** The format a parsed JSON input is in, or null. */
export function detectFormat(
  input: JsonInput,
  importers: readonly FormatImporter[],
  ctx: ImportContext = {},
): ImportFormat | null {
  return detectJsonImporter(input, importers, ctx)?.format ?? null;
}

/** The one issue for a document no importer recognizes: it names every accepted format. */
export function unknownFormatIssue(importers: readonly FormatImporter[]): ImportIssue {
  return {
    path: "",
    message: `unrecognized document format; accepted formats: ${importers.map((importer) => importer.label).join("; ")}`,
  };
}

function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}
