import Link from "next/link";
import type { ReactNode } from "react";
import { buttonClass } from "./Button";

/**
 * What a page shows where its list is empty: what is missing, why, and what to do. The way out is
 * either `link` (most often: a button-styled link to the page that fills the list) or any `action`.
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
  link?: { href: string; label: string };
}) {
  const way = link ? (
    <Link href={link.href} className={buttonClass()}>
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
