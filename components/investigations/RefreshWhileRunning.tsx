"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Re-renders the page from the server every `ms` while `running`: progress without a client-side copy of the data. */
export function RefreshWhileRunning({ running, ms = 1500 }: { running: boolean; ms?: number }) {
  const router = useRouter();
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => router.refresh(), ms);
    return () => clearInterval(timer);
  }, [running, ms, router]);
  return null;
}
