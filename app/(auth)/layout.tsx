import type { ReactNode } from "react";
import { Card } from "@/components/ui/Card";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-start justify-center bg-slate-50 px-4 pt-24">
      <Card as="div" padding="none" className="w-full max-w-sm p-6 shadow-sm">
        {children}
      </Card>
    </main>
  );
}
