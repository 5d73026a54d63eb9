import Link from "next/link";
import type { ReactNode } from "react";

export type Crumb = { href: string; label: ReactNode };

/**
 * The top of every dashboard page: where it sits (breadcrumbs, from the
 * section down to the parent of this page), its title, a line under it, and
 * the page's actions.
 */
export function PageHeader({
  title,
  subtitle,
  actions,
  breadcrumbs,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  actions?: ReactNode;
  breadcrumbs?: Crumb[];
}) {
  return (
    <div className="mb-6">
      {breadcrumbs && breadcrumbs.length > 0 ? (
        <nav aria-label="Breadcrumb" className="mb-2 text-sm">
          <ol className="flex flex-wrap items-center gap-1 text-slate-600">
            {breadcrumbs.map((c, i) => (
              <li key={c.href} className="flex min-w-0 items-center gap-1">
                {i > 0 ? (
                  <span aria-hidden="true" className="text-slate-500">
                    /
                  </span>
                ) : null}
                <Link href={c.href} className="max-w-[40ch] truncate hover:text-slate-900 hover:underline">
                  {c.label}
                </Link>
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="min-w-0">
          {/* A phone shows the whole title over a few lines; wider screens keep it to one. */}
          <h1 className="text-xl font-semibold tracking-tight break-words text-slate-900 sm:truncate">{title}</h1>
          {subtitle ? <div className="mt-1 text-sm text-slate-600">{subtitle}</div> : null}
        </div>
        {actions ? <div className="flex flex-wrap items-center gap-2">{actions}</div> : null}
      </div>
    </div>
  );
}
