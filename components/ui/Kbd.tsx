import type { ReactNode } from "react";

/** A key as printed on the keyboard. */
export function Kbd({ children }: { children: ReactNode }) {
  return (
    <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs text-slate-700">
      {children}
    </kbd>
  );
}
