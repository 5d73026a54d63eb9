// Writes lib/ingest/native.schema.json from the NativeSession zod schema.
// Run after changing the native format: `npx tsx scripts/gen-native-schema.ts`
// (a unit test fails while the committed file is stale).
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { nativeSchemaFileText } from "@/lib/ingest/native-schema-file";

const target = fileURLToPath(new URL("../lib/ingest/native.schema.json", import.meta.url));
writeFileSync(target, nativeSchemaFileText());
console.log(`wrote ${target}`);
