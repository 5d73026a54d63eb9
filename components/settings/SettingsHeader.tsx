import type { ReactNode } from "react";
import { PageHeader } from "@/components/ui/PageHeader";

/** The top of a page under Settings: the way back to Settings, the page's title and the line under it. */
export function SettingsHeader({ title, subtitle }: { title: ReactNode; subtitle: ReactNode }) {
  return <PageHeader breadcrumbs={[{ href: "/settings", label: "Settings" }]} title={title} subtitle={subtitle} />;
}
