import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "@/components/ui/Providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Branchpoint", template: "%s · Branchpoint" },
  description: "Root-cause analysis for AI-agent runs",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
