import type { ReactNode } from "react";
import { DashboardShell } from "@/components/ui/DashboardShell";
import { notFoundUnlessRecordExists } from "@/lib/http/page";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  // Before the page's loading skeleton starts the response: an unknown id is a 404, not a 200.
  await notFoundUnlessRecordExists();
  return <DashboardShell>{children}</DashboardShell>;
}
