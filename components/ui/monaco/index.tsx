"use client";

import dynamic from "next/dynamic";
import type { JsonDiffProps, JsonEditorProps } from "./JsonEditorImpl";

function Loading({ height = 320 }: { height?: number | string }) {
  return (
    <div
      style={{ height }}
      className="flex items-center justify-center rounded-md border border-slate-200 bg-slate-50 text-xs text-slate-500"
    >
      Loading editor…
    </div>
  );
}

/** A Monaco JSON editor (client-only, loaded locally). */
export const JsonEditor = dynamic<JsonEditorProps>(() => import("./JsonEditorImpl"), {
  ssr: false,
  loading: () => <Loading />,
});

/** Monaco's diff editor, for JSON or text. */
export const JsonDiff = dynamic<JsonDiffProps>(() => import("./JsonEditorImpl").then((m) => m.JsonDiffImpl), {
  ssr: false,
  loading: () => <Loading />,
});

/**
 * Starts loading the editors' code (Monaco, its workers' set-up and themes) now, so that an editor a page shows
 * later opens without "Loading editor…": call it when a page that will show one mounts.
 */
export function preloadMonaco(): void {
  import("./JsonEditorImpl").catch(() => undefined);
}

export type { JsonDiffProps, JsonEditorProps };
