"use client";

import { Button } from "@/components/ui/Button";
import { DEFAULT_COLUMNS, SESSION_COLUMNS, type SessionColumnId } from "./columns";

/** Which of the list's columns to show (the session's own always shows); the choice is kept in this browser. */
export function ColumnChooser({
  shown,
  onChange,
}: {
  shown: SessionColumnId[];
  onChange: (next: SessionColumnId[]) => void;
}) {
  const toggle = (id: SessionColumnId, on: boolean) =>
    onChange(SESSION_COLUMNS.map((c) => c.id).filter((c) => (c === id ? on : shown.includes(c))));
  return (
    <details className="relative hidden text-sm sm:block" data-testid="column-chooser">
      <summary className="cursor-pointer rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-700 shadow-sm hover:bg-slate-50">
        Columns ({shown.length + 1} of {SESSION_COLUMNS.length + 1})
      </summary>
      <fieldset className="absolute right-0 z-20 mt-1 w-56 rounded-md border border-slate-200 bg-white p-3 shadow-lg">
        <legend className="sr-only">Columns shown</legend>
        <p className="mb-2 text-xs text-slate-500">The session column always shows. Kept in this browser.</p>
        <ul className="space-y-1">
          {SESSION_COLUMNS.map((c) => (
            <li key={c.id}>
              <label className="flex items-center gap-2 text-slate-700">
                <input
                  type="checkbox"
                  checked={shown.includes(c.id)}
                  onChange={(e) => toggle(c.id, e.target.checked)}
                />
                {c.label}
              </label>
            </li>
          ))}
        </ul>
        <Button variant="link" size="inline" className="mt-2 text-xs" onClick={() => onChange(DEFAULT_COLUMNS)}>
          Show the usual columns
        </Button>
      </fieldset>
    </details>
  );
}
