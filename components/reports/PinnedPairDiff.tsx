"use client";

import { useEffect } from "react";
import { JsonDiff, preloadMonaco } from "@/components/ui/monaco";

/**
 * A changed pinned pair as the comparison page shows it: Monaco's diff of both sides (from the app's own bundle,
 * never a CDN), the unchanged stretches folded and the view opened at the first difference, with the paths that
 * differ above it. Read-only, and it asks the server for nothing: a shared report shows it too.
 */
export function PinnedPairDiff({
  original,
  modified,
  changedPaths,
  title,
}: {
  original: string;
  modified: string;
  changedPaths: readonly string[];
  /** The pair, for screen readers. */
  title: string;
}) {
  // The editor's code starts loading with the page, not when the diff scrolls into view.
  useEffect(preloadMonaco, []);
  return (
    <div className="min-w-0" data-testid="report-pair-diff">
      {changedPaths.length > 0 ? (
        <div className="mb-2 flex flex-wrap items-baseline gap-1 text-xs" data-testid="changed-paths">
          <span className="text-slate-500">Changed:</span>
          {changedPaths.map((p) => (
            <code key={p} className="rounded bg-amber-100 px-1 py-0.5 break-all text-amber-900">
              {p}
            </code>
          ))}
        </div>
      ) : null}
      <JsonDiff
        original={original}
        modified={modified}
        height={360}
        focusChanges
        sides={{ original: `Base of ${title}`, modified: `Branch of ${title}` }}
      />
    </div>
  );
}
