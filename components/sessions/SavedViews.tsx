"use client";

import Link from "next/link";
import { useState, useSyncExternalStore } from "react";
import { Button } from "@/components/ui/Button";

type View = { name: string; query: string };
const listeners = new Set<() => void>();
const subscribe = (notify: () => void) => {
  listeners.add(notify);
  window.addEventListener("storage", notify);
  return () => {
    listeners.delete(notify);
    window.removeEventListener("storage", notify);
  };
};

function parseViews(stored: string | null): View[] {
  try {
    const value: unknown = JSON.parse(stored ?? "[]");
    return Array.isArray(value)
      ? value.filter(
          (v): v is View =>
            typeof v === "object" &&
            v !== null &&
            typeof (v as View).name === "string" &&
            typeof (v as View).query === "string",
        )
      : [];
  } catch {
    return [];
  }
}

/**
 * Named views of the list: each a query string (filters and order) kept in this browser under the
 * signed-in user's name, so two people sharing a browser keep their own. A view is a link: the same
 * URL one would share.
 */
export function SavedViews({ user, query }: { user: string; query: string }) {
  const key = `branchpoint:session-views:${user}`;
  const stored = useSyncExternalStore(
    subscribe,
    () => window.localStorage.getItem(key),
    () => null,
  );
  const views = parseViews(stored);
  const [name, setName] = useState("");
  const write = (next: View[]) => {
    window.localStorage.setItem(key, JSON.stringify(next));
    for (const notify of listeners) notify();
  };
  const save = (e: React.FormEvent) => {
    e.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) return;
    write(
      [...views.filter((v) => v.name !== trimmed), { name: trimmed, query }].sort((a, b) =>
        a.name.localeCompare(b.name),
      ),
    );
    setName("");
  };
  return (
    <section
      aria-label="Saved views"
      className="mb-4 flex flex-wrap items-center gap-2 text-sm"
      data-testid="saved-views"
    >
      <span className="text-xs font-medium text-slate-600">Saved views:</span>
      {views.length === 0 ? <span className="text-xs text-slate-500">none yet</span> : null}
      {views.map((v) => (
        <span
          key={v.name}
          className={`inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs ${v.query === query ? "border-indigo-300 bg-indigo-50" : "border-slate-200 bg-white"}`}
        >
          <Link href={`/sessions${v.query ? `?${v.query}` : ""}`} className="text-indigo-700 hover:underline">
            {v.name}
          </Link>
          <Button
            variant="dangerGhost"
            size="icon"
            aria-label={`Delete the view ${v.name}`}
            onClick={() => write(views.filter((w) => w.name !== v.name))}
          >
            ×
          </Button>
        </span>
      ))}
      <form onSubmit={save} className="inline-flex items-center gap-1">
        <label className="sr-only" htmlFor="view-name">
          Name of this view
        </label>
        <input
          id="view-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={60}
          placeholder="Name this view"
          className="w-36 rounded-md border border-slate-300 bg-white px-2 py-0.5 text-xs"
        />
        <Button type="submit" variant="secondary" size="xs" disabled={!name.trim()}>
          Save view
        </Button>
      </form>
    </section>
  );
}
