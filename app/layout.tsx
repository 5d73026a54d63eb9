import type { Metadata, Viewport } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { Providers } from "@/components/ui/Providers";
import { THEME_COOKIE, parseTheme, themeClass } from "@/components/ui/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Branchpoint", template: "%s · Branchpoint" },
  description: "Root-cause analysis for AI-agent runs",
};

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  colorScheme: "light dark",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The theme chosen with the toggle is a cookie, so the first paint already has it (no flash).
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" className={themeClass(theme) || undefined}>
      <body className="min-h-screen">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
