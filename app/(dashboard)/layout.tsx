import type { ReactNode } from "react";
import { AppNav } from "@/components/ui/AppNav";
import { pagePrincipal } from "@/lib/http/principal";

export const dynamic = "force-dynamic";

/** Every dashboard page needs a signed-in, active user (checked against the database on each request). */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const principal = await pagePrincipal();
  return (
    <div className="flex min-h-screen flex-col">
      <AppNav user={{ name: principal.name, role: principal.role }} />
      <main className="mx-auto w-full max-w-7xl flex-1 px-6 py-6">{children}</main>
    </div>
  );
}
