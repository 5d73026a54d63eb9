import type { ReactNode } from "react";
import { AppNav } from "@/components/ui/AppNav";
import { KeyboardShortcuts } from "@/components/ui/KeyboardShortcuts";
import { pagePrincipal } from "@/lib/http/principal";

export const dynamic = "force-dynamic";

/** Every dashboard page needs a signed-in, active user (checked against the database on each request). */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const principal = await pagePrincipal();
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only rounded bg-white px-3 py-2 text-sm focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50"
      >
        Skip to content
      </a>
      <AppNav user={{ name: principal.name, role: principal.role }} />
      <main id="main" className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6">
        {children}
      </main>
      <KeyboardShortcuts />
    </div>
  );
}
