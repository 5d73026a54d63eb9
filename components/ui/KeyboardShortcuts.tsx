"use client";

import { useQuery } from "@tanstack/react-query";
import { Command } from "cmdk";
import { useRouter } from "next/navigation";
import { useDeferredValue, useEffect, useRef, useState } from "react";
import { searchAction } from "@/lib/actions/search";
import { Kbd } from "./Kbd";
import { SHORTCUTS, isTypingTarget, stepIndex } from "./keyboard";
import { NAV_LINKS, navLinkForKey } from "./navLinks";

/** Rows that j/k move through: explicit list items, else table rows that link somewhere. */
const ROW_SELECTOR = "main [data-list-item], main tbody tr:has(a[href])";
/** The page's own search or filter box, for "/". */
const SEARCH_SELECTOR = "main [data-page-search], main input[type=search]";

export const OPEN_PALETTE_EVENT = "branchpoint:open-palette";

/** The dashboard's keyboard layer: "?" overlay, Ctrl/⌘ K palette, "/" search, j/k rows, g-then-letter navigation. */
export function KeyboardShortcuts() {
  const router = useRouter();
  const [paletteOpen, setPaletteOpen] = useState(false);
  const help = useRef<HTMLDialogElement>(null);
  const pendingG = useRef(0);

  useEffect(() => {
    const openPalette = () => setPaletteOpen(true);
    window.addEventListener(OPEN_PALETTE_EVENT, openPalette);
    function onKey(e: KeyboardEvent) {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setPaletteOpen((open) => !open);
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented || isTypingTarget(e.target)) return;
      if (document.querySelector("[role=dialog][data-state=open], dialog[open]")) return;
      const now = Date.now();
      if (pendingG.current && now - pendingG.current < 1500) {
        pendingG.current = 0;
        const link = navLinkForKey(e.key);
        if (link) {
          e.preventDefault();
          router.push(link.href);
        }
        return;
      }
      switch (e.key) {
        case "?":
          e.preventDefault();
          help.current?.showModal();
          return;
        case "/": {
          const box = document.querySelector<HTMLElement>(SEARCH_SELECTOR);
          if (box) {
            e.preventDefault();
            box.focus();
          }
          return;
        }
        case "g":
          pendingG.current = now;
          return;
        case "j":
        case "k":
          moveRow(e.key === "j" ? 1 : -1);
          return;
      }
    }
    window.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener(OPEN_PALETTE_EVENT, openPalette);
    };
  }, [router]);

  return (
    <>
      <CommandPalette open={paletteOpen} onOpenChange={setPaletteOpen} />
      <dialog
        ref={help}
        aria-labelledby="shortcuts-title"
        className="m-auto w-full max-w-lg rounded-lg border border-slate-200 bg-white p-0 text-slate-900 shadow-xl backdrop:bg-slate-900/40"
        onClick={(e) => {
          if (e.target === e.currentTarget) e.currentTarget.close();
        }}
      >
        <div className="p-5">
          <div className="mb-3 flex items-center justify-between">
            <h2 id="shortcuts-title" className="text-base font-semibold">
              Keyboard shortcuts
            </h2>
            <button
              type="button"
              className="rounded px-2 py-1 text-sm text-slate-600 hover:bg-slate-100"
              onClick={() => help.current?.close()}
            >
              Close
            </button>
          </div>
          <dl className="divide-y divide-slate-100 text-sm">
            {SHORTCUTS.map((s) => (
              <div key={s.does} className="flex items-start justify-between gap-4 py-2">
                <dt className="flex shrink-0 flex-wrap gap-1">
                  {s.keys.map((k) => (
                    <Kbd key={k}>{k}</Kbd>
                  ))}
                </dt>
                <dd className="text-right text-slate-600">{s.does}</dd>
              </div>
            ))}
          </dl>
        </div>
      </dialog>
    </>
  );
}

function moveRow(delta: 1 | -1) {
  const rows = [...document.querySelectorAll<HTMLElement>(ROW_SELECTOR)];
  const current = rows.findIndex((r) => r.dataset.kbdActive === "true");
  const next = stepIndex(current, rows.length, delta);
  const row = rows[next];
  if (!row) return;
  rows.forEach((r) => delete r.dataset.kbdActive);
  row.dataset.kbdActive = "true";
  const target = row.matches("a[href], button") ? row : row.querySelector<HTMLElement>("a[href], button");
  (target ?? row).focus();
  row.scrollIntoView({ block: "nearest" });
}

const KIND_LABEL = {
  session: "Session",
  policy: "Policy",
  replay: "Replay",
  experiment: "Experiment",
  report: "Report",
};

/** Ctrl/⌘ K: go to a page, or to a session, policy, replay, experiment or report by name or id. */
function CommandPalette({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const router = useRouter();
  const [q, setQ] = useState("");
  const query = useDeferredValue(q.trim());
  const { data, isFetching } = useQuery({
    queryKey: ["palette-search", query],
    queryFn: async () => {
      const result = await searchAction({ q: query });
      return result.ok ? result.data : [];
    },
    enabled: open,
    staleTime: 5_000,
  });
  const go = (href: string) => {
    onOpenChange(false);
    setQ("");
    router.push(href);
  };
  return (
    <Command.Dialog
      open={open}
      onOpenChange={onOpenChange}
      label="Command palette"
      overlayClassName="fixed inset-0 z-40 bg-slate-900/40"
      contentClassName="fixed inset-x-4 top-[12vh] z-50 mx-auto max-w-xl overflow-hidden rounded-lg border border-slate-200 bg-white text-slate-900 shadow-xl"
    >
      <Command.Input
        value={q}
        onValueChange={setQ}
        placeholder="Go to a session, policy, replay… by name or id"
        aria-label="Search sessions, policies, replays, experiments and reports"
        className="w-full border-b border-slate-200 bg-transparent px-4 py-3 text-sm outline-none placeholder:text-slate-500"
      />
      <Command.List className="max-h-[60vh] overflow-y-auto p-2 text-sm" label="Results">
        <Command.Empty className="px-3 py-6 text-center text-slate-600">
          {isFetching ? "Searching…" : "Nothing by that name."}
        </Command.Empty>
        <Command.Group heading="Pages" className={GROUP}>
          {NAV_LINKS.map((l) => (
            <Command.Item key={l.href} value={`page ${l.label}`} onSelect={() => go(l.href)} className={ITEM}>
              {l.label}
            </Command.Item>
          ))}
        </Command.Group>
        {data && data.length > 0 ? (
          <Command.Group heading="Found" className={GROUP}>
            {data.map((hit) => (
              <Command.Item
                key={`${hit.kind}-${hit.id}`}
                value={`${hit.kind} ${hit.label} ${hit.detail} ${hit.id}`}
                keywords={[query]}
                onSelect={() => go(hit.href)}
                className={ITEM}
              >
                <span className="w-20 shrink-0 text-xs text-slate-600">{KIND_LABEL[hit.kind]}</span>
                <span className="min-w-0 flex-1 truncate font-medium">{hit.label}</span>
                <span className="max-w-[40%] shrink-0 truncate text-xs text-slate-600">{hit.detail}</span>
              </Command.Item>
            ))}
          </Command.Group>
        ) : null}
      </Command.List>
    </Command.Dialog>
  );
}

const GROUP =
  "[&_[cmdk-group-heading]]:px-3 [&_[cmdk-group-heading]]:pt-2 [&_[cmdk-group-heading]]:pb-1 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-medium [&_[cmdk-group-heading]]:text-slate-600";
const ITEM =
  "flex cursor-pointer items-center gap-3 rounded-md px-3 py-2 data-[selected=true]:bg-indigo-50 data-[selected=true]:text-indigo-900";
