import type { FormatImporter } from "./importer";
import { nativeImporter } from "./native";
import { openAiChatImporter } from "./openai-chat";

/**
 * Every importer `importDocument` knows, in detection order: the first whose
 * `detect` claims a document imports it, so put the most specific shapes
 * first. The OTLP (`otlp-json`, `otlp-protobuf`) and OpenAI Agents SDK
 * (`openai-agents`) importers join this list as `JsonImporter`/`BytesImporter`
 * values from `lib/ingest/otlp/` and `lib/ingest/openai-agents.ts`.
 */
export const importers: readonly FormatImporter[] = [nativeImporter, openAiChatImporter];
