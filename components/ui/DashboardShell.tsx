import type { ReactNode } from "react";
import { AppNav } from "./AppNav";
import { KeyboardShortcuts } from "./KeyboardShortcuts";

/** The dashboard's frame: skip link, navigation, main column, keyboard shortcuts (its pages and the not-found page). */
export function DashboardShell({
  children,
  user,
}: {
  children: ReactNode;
  /** Who is signed in (absent on a not-found page seen signed out). */
  user?: { name: string; role: string } | undefined;
}) {
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only rounded bg-white px-3 py-2 text-sm focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50"
      >
        Skip to content
      </a>
      <AppNav user={user} />
      <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6">
        {children}
      </main>
      <KeyboardShortcuts />
    </div>
  );
}
