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

/** The editor option that names an editor's text input for screen readers. */
export const ARIA_LABEL_OPTION = monaco.editor.EditorOption.ariaLabel;

/**
 * No editor's text input loses its name once it has one. A diff editor creates its two inner editors named
 * (originalAriaLabel, modifiedAriaLabel), then at once re-applies its options to them with an empty label
 * (monaco 0.57), and `@monaco-editor/react` hands the editor to onMount (JsonEditorImpl names the sides there) a
 * React render later: under load an audit, or a screen reader, found all four inputs of a page's two diffs unnamed
 * in between. Each editor is watched from its creation: a label emptied is put back within the same change.
 */
monaco.editor.onDidCreateEditor((editor) => {
  let name = editor.getOption(ARIA_LABEL_OPTION);
  editor.onDidChangeConfiguration((change) => {
    if (!change.hasChanged(ARIA_LABEL_OPTION)) return;
    const now = editor.getOption(ARIA_LABEL_OPTION);
    if (now) name = now;
    else if (name) editor.updateOptions({ ariaLabel: name });
  });
});

/** The editors' themes: Monaco's own light and dark ones, with the changes below. */
export const MONACO_THEMES = { light: "branchpoint-light", dark: "branchpoint-dark" } as const;

/**
 * A diff tints changed lines and, darker, the changed text in them; the JSON token colours painted on
 * those tints fell under 4.5:1 contrast (a blue value on the removed-text red, 4.0:1; in the dark theme
 * a string on the inserted-line green, 4.3:1). The tints are a little paler here (alpha 0.15 and 0.18
 * where Monaco has 0.2 and 0.25), and the colours that still fell short are a little darker (light)
 * or lighter (dark), so that every JSON token keeps 4.5:1 on the editor and on each tint.
 */
const DIFF_TINTS = {
  "diffEditor.insertedLineBackground": "#9bb95526",
  "diffEditor.insertedTextBackground": "#9ccc2c2e",
  "diffEditor.removedLineBackground": "#ff000026",
  "diffEditor.removedTextBackground": "#ff00002e",
};
/** Each theme: Monaco's own, with the JSON token colours above (darker or lighter) and the paler diff tints. */
const THEMES: [name: string, base: "vs" | "vs-dark", rules: { token: string; foreground: string }[]][] = [
  [
    MONACO_THEMES.light,
    "vs",
    [
      { token: "string.key.json", foreground: "A21515" },
      { token: "string.value.json", foreground: "044FA2" },
      { token: "keyword.json", foreground: "044FA2" },
      { token: "number", foreground: "065D3D" },
    ],
  ],
  [
    MONACO_THEMES.dark,
    "vs-dark",
    [
      { token: "string.value.json", foreground: "DEB4A3" },
      { token: "keyword.json", foreground: "DEB4A3" },
    ],
  ],
];
for (const [name, base, rules] of THEMES)
  monaco.editor.defineTheme(name, { base, inherit: true, rules, colors: DIFF_TINTS });

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
