import type { ReactNode } from "react";
import { DashboardShell } from "@/components/ui/DashboardShell";
import { notFoundUnlessRecordExists, orDatabaseUnavailable } from "@/lib/http/page";
import { pagePrincipal } from "@/lib/http/principal";

export const dynamic = "force-dynamic";

/** Every dashboard page needs a signed-in, active user (checked against the database on each request). */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const principal = await orDatabaseUnavailable(pagePrincipal());
  // Before the page's loading skeleton starts the response: an unknown id is a 404, not a 200.
  await notFoundUnlessRecordExists();
  return <DashboardShell user={{ name: principal.name, role: principal.role }}>{children}</DashboardShell>;
}
