"use client";

import { useEffect, useState } from "react";
import type { Policy } from "@/lib/replay";
import { parseDraft, restoreDraft, type EditorState } from "./editor-state";

/**
 * Unsaved changes survive a reload: on mount, a draft of this policy and base
 * version kept in the browser is restored; afterwards the text is kept while
 * it differs from the saved version and dropped when it does not. Returns when
 * the restored draft was written (null when none was, or once it is dealt with).
 */
export function useBrowserDraft({
  key,
  base,
  dirty,
  text,
  onRestore,
}: {
  key: string;
  base: Policy;
  dirty: boolean;
  text: string;
  onRestore: (state: EditorState) => void;
}) {
  const [hydrated, setHydrated] = useState(false);
  const [restoredAt, setRestoredAt] = useState<string | null>(null);

  useEffect(() => {
    const draft = parseDraft(window.localStorage.getItem(key));
    if (draft) {
      onRestore(restoreDraft(base, draft));
      setRestoredAt(draft.savedAt);
    }
    setHydrated(true);
    // Once, on mount.
  }, []);

  useEffect(() => {
    if (!hydrated) return;
    if (dirty) window.localStorage.setItem(key, JSON.stringify({ text, savedAt: new Date().toISOString() }));
    else window.localStorage.removeItem(key);
  }, [hydrated, dirty, key, text]);

  return [restoredAt, setRestoredAt] as const;
}
