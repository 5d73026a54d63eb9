import { nativeSchemaFileText } from "@/lib/ingest/native-schema-file";
import { publicRoute } from "@/lib/http/route";

/** The JSON Schema of the native session format (lib/ingest/native.schema.json); public, like any format reference. */
export const GET = publicRoute(
  () =>
    new Response(nativeSchemaFileText(), {
      headers: { "content-type": "application/schema+json; charset=utf-8", "cache-control": "public, max-age=300" },
    }),
);
