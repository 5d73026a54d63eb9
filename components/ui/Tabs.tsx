"use client";

import type { HTMLAttributes, KeyboardEvent, ReactNode } from "react";

const LOOKS = {
  /** Small dark pills beside a heading. */
  pill: {
    list: "flex gap-1",
    tab: "rounded-md px-2.5 py-1 text-xs font-medium",
    on: "bg-slate-900 text-white",
    off: "text-slate-600 hover:bg-slate-100",
  },
  /** A segmented control: the views of one thing. */
  segmented: {
    list: "flex rounded-md border border-slate-300 bg-white p-0.5",
    tab: "rounded px-3 py-1 text-sm font-medium",
    on: "bg-indigo-600 text-white",
    off: "text-slate-700 hover:bg-slate-100",
  },
  /** Barely there: Write / Preview above a text box. */
  quiet: {
    list: "flex gap-1 text-xs",
    tab: "rounded px-2 py-0.5",
    on: "bg-slate-100 font-medium text-slate-900",
    off: "text-slate-500",
  },
} as const;

export type Tab<T extends string> = { value: T; label: ReactNode };

const tabId = (id: string, value: string) => `${id}-tab-${value}`;
const panelId = (id: string, value: string) => `${id}-panel-${value}`;

/**
 * A row of tabs (role tablist/tab): the selected tab is the one in the Tab order, and the arrow
 * keys, Home and End move to and select the others. `id` ties the tabs to their `TabPanel`.
 */
export function Tabs<T extends string>({
  id,
  label,
  tabs,
  selected,
  onSelect,
  look = "pill",
  className = "",
}: {
  id: string;
  label?: string;
  tabs: readonly Tab<T>[];
  selected: T;
  onSelect: (value: T) => void;
  look?: keyof typeof LOOKS;
  className?: string;
}) {
  const style = LOOKS[look];
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = tabs.findIndex((t) => t.value === selected);
    const next =
      e.key === "ArrowRight"
        ? (at + 1) % tabs.length
        : e.key === "ArrowLeft"
          ? (at - 1 + tabs.length) % tabs.length
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? tabs.length - 1
              : -1;
    const value = tabs[next]?.value;
    if (value === undefined) return;
    e.preventDefault();
    onSelect(value);
    document.getElementById(tabId(id, value))?.focus();
  };
  return (
    <div role="tablist" aria-label={label} className={`${style.list} ${className}`.trim()} onKeyDown={onKeyDown}>
      {tabs.map((t) => {
        const on = t.value === selected;
        return (
          <button
            key={t.value}
            id={tabId(id, t.value)}
            type="button"
            role="tab"
            aria-selected={on}
            aria-controls={on ? panelId(id, t.value) : undefined}
            tabIndex={on ? 0 : -1}
            onClick={() => onSelect(t.value)}
            className={`${style.tab} ${on ? style.on : style.off}`}
          >
            {t.label}
          </button>
        );
      })}
    </div>
  );
}

/** The content of the selected tab; `value` is that tab's. */
export function TabPanel({
  id,
  value,
  children,
  ...rest
}: { id: string; value: string; children: ReactNode } & HTMLAttributes<HTMLDivElement>) {
  return (
    <div role="tabpanel" id={panelId(id, value)} aria-labelledby={tabId(id, value)} {...rest}>
      {children}
    </div>
  );
}
