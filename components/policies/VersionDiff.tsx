"use client";

import { JsonDiff } from "@/components/ui/monaco";

/** Two versions of a policy side by side in Monaco's diff editor; `sides` names them ("v1", "v2") for screen readers. */
export function VersionDiff({
  original,
  modified,
  sides,
}: {
  original: string;
  modified: string;
  sides: { original: string; modified: string };
}) {
  return <JsonDiff original={original} modified={modified} height={480} language="json" sides={sides} />;
}
