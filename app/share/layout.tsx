import type { Metadata } from "next";
import type { ReactNode } from "react";

/** Shared reports: never indexed, and the token in the URL is not sent on as a referrer. */
export const metadata: Metadata = {
  title: "Shared report",
  robots: { index: false, follow: false, nocache: true, googleBot: { index: false, follow: false } },
  referrer: "no-referrer",
};

/** The chrome of a shared report: no navigation into the dashboard, no actions. */
export default function ShareLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex h-12 max-w-5xl items-center gap-2 px-6 text-sm">
          <span className="font-semibold tracking-tight text-slate-900">Branchpoint</span>
          <span className="text-slate-500">·</span>
          <span className="text-slate-600">shared RCA report, read-only</span>
        </div>
      </header>
      <main className="mx-auto w-full max-w-5xl flex-1 px-6 py-6">{children}</main>
    </div>
  );
}
