"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { Button } from "@/components/ui/Button";
import { plural } from "@/lib/format";

/** How often the list is read again while watching. */
const EVERY_MS = 4000;

/**
 * A live tail of the list: while on, the page reads its list again every few seconds (only while the tab is
 * shown), so sessions arriving from trace exporters and imports appear as they come, and says how many arrived
 * since watching began. The list keeps its filters and order; a new run that matches them shows in its place.
 */
export function LiveTail({ total }: { total: number }) {
  const router = useRouter();
  const [since, setSince] = useState<number | null>(null);
  const [checkedAt, setCheckedAt] = useState<Date | null>(null);
  // The latest router, read by the timer (which is set once per watch).
  const routerRef = useRef(router);
  routerRef.current = router;
  const watching = since !== null;
  useEffect(() => {
    if (!watching) return;
    const timer = window.setInterval(() => {
      if (document.visibilityState !== "visible") return;
      routerRef.current.refresh();
      setCheckedAt(new Date());
    }, EVERY_MS);
    return () => window.clearInterval(timer);
  }, [watching]);
  const arrived = since === null ? 0 : Math.max(total - since, 0);
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="live-tail">
      <Button
        variant="secondary"
        size="sm"
        aria-pressed={watching}
        onClick={() => {
          setSince(watching ? null : total);
          setCheckedAt(null);
        }}
      >
        {watching ? "Stop watching" : "Watch for new runs"}
      </Button>
      {watching ? (
        <span role="status" className="text-slate-600">
          {arrived > 0 ? `${plural(arrived, "new run")} since you started watching` : "Watching: no new run yet"}
          {checkedAt ? ` · checked ${checkedAt.toISOString().slice(11, 19)} UTC` : ""}
        </span>
      ) : null}
    </div>
  );
}
