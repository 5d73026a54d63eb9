import { nativeSessionJsonSchema } from "./native";

/** The exact text of the committed `lib/ingest/native.schema.json`. */
export function nativeSchemaFileText(): string {
  return `${JSON.stringify(nativeSessionJsonSchema, null, 2)}\n`;
}
