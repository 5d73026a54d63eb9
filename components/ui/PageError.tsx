"use client";

import { useRouter } from "next/navigation";
import { startTransition, useEffect, useState } from "react";
import { DATABASE_UNAVAILABLE_DIGEST } from "@/lib/errors";
import { Button } from "./Button";
import { EmptyState } from "./EmptyState";

/**
 * What a page shows when it could not be made. When the database is out of
 * reach (the error's digest says so, or, for an error that does not, the health
 * check answers 503), it says so and to try again; anything else is a plain
 * "something went wrong". Either way the button loads the page again.
 */
export function PageError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  const router = useRouter();
  const [databaseDown, setDatabaseDown] = useState(error.digest === DATABASE_UNAVAILABLE_DIGEST);
  useEffect(() => {
    if (databaseDown) return;
    let live = true;
    fetch("/api/health", { cache: "no-store" })
      .then((r) => {
        if (live && r.status === 503) setDatabaseDown(true);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [databaseDown]);
  const retry = () =>
    startTransition(() => {
      router.refresh();
      reset();
    });
  return (
    <EmptyState
      title={databaseDown ? "The database is unreachable" : "Something went wrong"}
      action={<Button onClick={retry}>Try again</Button>}
    >
      {databaseDown
        ? "Branchpoint cannot reach its database right now, so this page could not be loaded. Nothing was lost: try again in a few seconds."
        : "This page could not be loaded. Try again; if it keeps failing, the server's log says why."}
    </EmptyState>
  );
}
