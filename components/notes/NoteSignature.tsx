"use client";

import { formatDateTime } from "@/lib/format";
import { ConfirmButton } from "@/components/ui/ConfirmButton";

/** Who reads a list of notes: whether they may write, and who they are (their own notes can be deleted). */
export type NoteReader = { canWrite: boolean; name: string; admin: boolean };

/**
 * A note's author and time (an annotation, a report comment), and for its author or an admin, a Delete that asks
 * first. The server decides again who may delete; this only offers the button where it will be allowed.
 */
export function NoteSignature({
  note,
  what,
  reader,
  pending,
  onDelete,
}: {
  note: { author: string; createdAt: string };
  /** The note's kind, in the question asked before deleting. */
  what: string;
  reader: NoteReader;
  pending: boolean;
  onDelete: () => void;
}) {
  return (
    <>
      <span className="text-xs text-slate-600">
        {note.author} · {formatDateTime(note.createdAt)}
      </span>
      {reader.canWrite && (reader.admin || note.author === reader.name) ? (
        <span className="ml-auto">
          <ConfirmButton
            size="sm"
            question={`Delete this ${what}?`}
            confirmLabel="Delete"
            pending={pending}
            onConfirm={onDelete}
          >
            Delete
          </ConfirmButton>
        </span>
      ) : null}
    </>
  );
}
