import { nativeSchemaFileText } from "@/lib/ingest/native-schema-file";

/** The JSON Schema of the native session format (lib/ingest/native.schema.json); public, like any format reference. */
export function GET() {
  return new Response(nativeSchemaFileText(), {
    headers: { "content-type": "application/schema+json; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}
