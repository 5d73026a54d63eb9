"use client";

import { JsonDiff } from "@/components/ui/monaco";

/** Two versions of a policy side by side in Monaco's diff editor. */
export function VersionDiff({ original, modified }: { original: string; modified: string }) {
  return <JsonDiff original={original} modified={modified} height={480} language="json" />;
}
