"use client";

import { useCallback, useSyncExternalStore } from "react";
import { DEFAULT_COLUMNS, parseColumns, type SessionColumnId } from "./columns";

const KEY = "branchpoint:session-columns";
/** This tab's own changes (the storage event fires only in other tabs). */
const listeners = new Set<() => void>();

function subscribe(notify: () => void) {
  listeners.add(notify);
  window.addEventListener("storage", notify);
  return () => {
    listeners.delete(notify);
    window.removeEventListener("storage", notify);
  };
}
const read = () => window.localStorage.getItem(KEY);
/** The server, and the first paint before the browser's choice is read, show the default columns. */
const readOnServer = () => null;

/** The columns chosen for the session list, remembered in this browser (localStorage). */
export function useSessionColumns(): [SessionColumnId[], (next: SessionColumnId[]) => void] {
  const stored = useSyncExternalStore(subscribe, read, readOnServer);
  const columns = stored === null ? DEFAULT_COLUMNS : parseColumns(stored);
  const choose = useCallback((next: SessionColumnId[]) => {
    window.localStorage.setItem(KEY, JSON.stringify(next));
    for (const notify of listeners) notify();
  }, []);
  return [columns, choose];
}
