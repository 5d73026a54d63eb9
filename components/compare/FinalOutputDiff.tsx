"use client";

import { JsonDiff } from "@/components/ui/monaco";

/** The two final outputs as a text diff (the shared Monaco diff component). */
export function FinalOutputDiff({
  base,
  branch,
  sides,
}: {
  base: string;
  branch: string;
  /** What each side is, for screen readers (default: base and branch). */
  sides?: { original: string; modified: string };
}) {
  if (!base && !branch) return <p className="text-sm text-slate-500">Neither run has a final output.</p>;
  return <JsonDiff original={base} modified={branch} language="plaintext" height={200} {...(sides ? { sides } : {})} />;
}
