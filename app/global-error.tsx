"use client";

import { PageError } from "@/components/ui/PageError";
import "./globals.css";

/** The root layout itself failed: the page whole, with the same words as app/error.tsx. */
export default function GlobalError(props: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <main className="mx-auto max-w-3xl px-4 py-16">
          <PageError {...props} />
        </main>
      </body>
    </html>
  );
}
