"use client";

/**
 * Monaco from the local package, never from a CDN (these machines reach only
 * the npm registry): workers are bundled by Next and `@monaco-editor/react`
 * is told to use this module's `monaco`. Import only from client-only
 * modules loaded with `next/dynamic(..., { ssr: false })`.
 */
import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor";

type MonacoEnv = { getWorker(workerId: string, label: string): Worker };

const env = self as unknown as { MonacoEnvironment?: MonacoEnv };
env.MonacoEnvironment = {
  getWorker(_workerId: string, label: string) {
    if (label === "json") {
      return new Worker(new URL("monaco-editor/language/json/json.worker", import.meta.url), { type: "module" });
    }
    return new Worker(new URL("monaco-editor/editor/editor.worker", import.meta.url), { type: "module" });
  },
};

loader.config({ monaco });

/** Registers JSON Schemas for documents opened under the given model URIs (completion and squiggles). */
export function setJsonSchemas(schemas: { uri: string; fileMatch: string[]; schema: unknown }[]) {
  monaco.json.jsonDefaults.setDiagnosticsOptions({
    validate: true,
    allowComments: false,
    enableSchemaRequest: false,
    schemas: schemas.map((s) => ({ uri: s.uri, fileMatch: s.fileMatch, schema: s.schema as object })),
  });
}

export { monaco };
