"use client";

import { useQuery } from "@tanstack/react-query";
import { replayCoverageAction } from "@/lib/actions/replays";
import { SkeletonBar } from "@/components/ui/Skeleton";
import { CoveragePanel } from "./CoveragePanel";
import { Card } from "@/components/ui/Card";

/**
 * The replay's policy coverage, loaded once the page is on screen: it reads
 * every tool call of both runs, which a long branch's first screen should
 * not wait for.
 */
export function ReplayCoverage({ replayId, version }: { replayId: string; version: string }) {
  const { data, error } = useQuery({
    queryKey: ["replay-coverage", replayId, version],
    staleTime: Infinity,
    queryFn: async () => {
      const result = await replayCoverageAction({ replayId });
      if (!result.ok) throw new Error(result.error.message);
      return result.data;
    },
  });
  if (data)
    return <CoveragePanel coverage={data} csvHref={`/api/replays/${encodeURIComponent(replayId)}/coverage.csv`} />;
  return (
    <Card as="div" padding="lg" className="mt-6 text-sm" role="status" aria-busy={error ? undefined : true}>
      {error ? (
        <span className="text-rose-700">Policy coverage could not be loaded: {error.message}</span>
      ) : (
        <>
          <span className="sr-only">Loading policy coverage…</span>
          <SkeletonBar className="h-4 w-48" />
        </>
      )}
    </Card>
  );
}
