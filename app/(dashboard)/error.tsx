"use client";

import { PageError } from "@/components/ui/PageError";

/** A dashboard page that failed to load, inside the dashboard's frame (the database unreachable says so). */
export default function DashboardError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return <PageError {...props} />;
}
