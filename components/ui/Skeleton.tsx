import type { ReactNode } from "react";

/** Grey placeholders shown while a page's data loads (a route's loading.tsx), so the page is never blank. */
export function SkeletonBar({ className = "" }: { className?: string }) {
  return <div className={`animate-pulse rounded bg-slate-200 ${className}`} />;
}

/** The loading status every skeleton is, and the page header it starts with (title and intro widths vary). */
function SkeletonPage({
  label,
  title,
  intro,
  children,
}: {
  label: string;
  title: string;
  intro: string;
  children: ReactNode;
}) {
  return (
    <div role="status" aria-live="polite" aria-busy="true" data-testid="page-skeleton">
      <span className="sr-only">{label}</span>
      <SkeletonBar className="mb-3 h-3 w-32" />
      <SkeletonBar className={`mb-2 h-6 ${title}`} />
      <SkeletonBar className={`mb-6 h-4 ${intro}`} />
      {children}
    </div>
  );
}

/** A page header and a list of rows: what most dashboard pages look like while they load. */
export function PageSkeleton({ rows = 8, label = "Loading…" }: { rows?: number; label?: string }) {
  return (
    <SkeletonPage label={label} title="w-72" intro="w-96 max-w-full">
      <div className="overflow-hidden rounded-lg border border-slate-200 bg-white">
        <div className="border-b border-slate-200 bg-slate-50 px-3 py-2">
          <SkeletonBar className="h-3 w-48" />
        </div>
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className="flex items-center gap-4 border-b border-slate-100 px-3 py-3 last:border-0">
            <SkeletonBar className="h-4 w-1/3" />
            <SkeletonBar className="h-4 w-16" />
            <SkeletonBar className="h-4 w-24" />
            <SkeletonBar className="ml-auto h-4 w-20" />
          </div>
        ))}
      </div>
    </SkeletonPage>
  );
}

/** A two-column view (a timeline beside a detail panel), as the session and comparison pages have. */
export function SplitSkeleton({ label = "Loading…" }: { label?: string }) {
  return (
    <SkeletonPage label={label} title="w-96 max-w-full" intro="w-64">
      <div className="grid gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <div className="space-y-2">
          {Array.from({ length: 10 }, (_, i) => (
            <SkeletonBar key={i} className="h-10 w-full" />
          ))}
        </div>
        <SkeletonBar className="h-96 w-full" />
      </div>
    </SkeletonPage>
  );
}
