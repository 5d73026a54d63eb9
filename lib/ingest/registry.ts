import type { FormatImporter } from "./importer";
import { langfuseImporter } from "./langfuse";
import { langSmithImporter } from "./langsmith";
import { phoenixImporter } from "./phoenix";
import { braintrustImporter } from "./braintrust";
import { nativeImporter } from "./native";
import { openAiAgentsImporter } from "./openai-agents";
import { openAiChatImporter } from "./openai-chat";
import { otlpJsonImporter, otlpProtobufImporter } from "./otlp";

/**
 * Every importer `importDocument` knows, in detection order: the first whose
 * `detect` claims a document imports it, so put the most specific shapes
 * first. JSON importers are tried on JSON text; the protobuf importer only on
 * bytes that are not JSON text.
 */
export const importers: readonly FormatImporter[] = [
  nativeImporter,
  otlpJsonImporter,
  openAiAgentsImporter,
  langfuseImporter,
  langSmithImporter,
  phoenixImporter,
  braintrustImporter,
  openAiChatImporter,
  otlpProtobufImporter,
];
