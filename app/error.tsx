"use client";

import { PageError } from "@/components/ui/PageError";

/** A page (or the dashboard's frame itself) that failed to load; the database unreachable says so. */
export default function RootError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto max-w-3xl px-4 py-16">
      <PageError {...props} />
    </main>
  );
}
