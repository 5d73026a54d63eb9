import Link from "next/link";
import type { ReactNode } from "react";
import { buttonClass } from "./Button";

/**
 * What a page shows where its list is empty: what is missing, why, and what to do. The way out is
 * either `link` (a link to the page that fills the list: a button, or a plain text link) or any `action`.
 */
export function EmptyState({
  title,
  children,
  action,
  link,
}: {
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  link?: { href: string; label: string; look?: "button" | "text" };
}) {
  const way = link ? (
    <Link
      href={link.href}
      className={link.look === "text" ? "text-sm font-medium text-indigo-700 hover:underline" : buttonClass()}
    >
      {link.label}
    </Link>
  ) : (
    action
  );
  return (
    <div className="rounded-lg border border-dashed border-slate-300 bg-white px-6 py-12 text-center">
      <h2 className="text-base font-semibold text-slate-900">{title}</h2>
      {children ? <div className="mx-auto mt-2 max-w-xl text-sm text-slate-600">{children}</div> : null}
      {way ? <div className="mt-5">{way}</div> : null}
    </div>
  );
}

/** What a page that works on recorded sessions shows before any is imported; `children` say what it needs them for. */
export function NoSessionsYet({ children }: { children: ReactNode }) {
  return (
    <EmptyState title="No sessions yet" link={{ href: "/import", label: "Import sessions" }}>
      {children}
    </EmptyState>
  );
}
