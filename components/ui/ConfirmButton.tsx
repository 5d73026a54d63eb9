"use client";

import { useId, useState, type ReactNode } from "react";
import { Button, type ButtonSize } from "./Button";

/**
 * A button for an irreversible action that asks first. By default the question opens in the page
 * (an alertdialog under the button, with the confirm and Cancel buttons); `native` asks with the
 * browser's own confirm box instead, for a small button in a table row.
 */
export function ConfirmButton({
  children,
  question,
  details,
  confirmLabel,
  pendingLabel,
  onConfirm,
  pending = false,
  disabled = false,
  native = false,
  size = "md",
  className = "",
  tone = "danger",
}: {
  /** The button's words (say "…" when it asks first, as "Delete…"). */
  children: ReactNode;
  /** The question: the dialog's name, or the text of the browser's box. */
  question: string;
  /** What else goes with it (the dialog's description). */
  details?: ReactNode;
  /** The words of the button that does it ("Delete report"). */
  confirmLabel?: string;
  /** Its words while the action runs ("Deleting…"). */
  pendingLabel?: string;
  onConfirm: () => void;
  pending?: boolean;
  disabled?: boolean;
  native?: boolean;
  size?: ButtonSize;
  className?: string;
  /** `danger` for what destroys (Delete); `primary` for a step that cannot be taken back but is the way forward (Publish). */
  tone?: "danger" | "primary";
}) {
  const [asking, setAsking] = useState(false);
  const id = useId();
  // The first press: the browser's own dialog asks (native), or the button turns into the question below.
  if (native || !asking) {
    return (
      <Button
        variant={tone === "danger" ? "dangerOutline" : "primary"}
        size={size}
        className={className}
        disabled={disabled || pending}
        onClick={() => {
          if (!native) setAsking(true);
          else if (window.confirm(question)) onConfirm();
        }}
      >
        {children}
      </Button>
    );
  }
  return (
    <div
      role="alertdialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={details ? `${id}-text` : undefined}
      className={`mt-1 basis-full rounded-md border bg-white p-3 ${tone === "danger" ? "border-rose-300" : "border-indigo-300"}`}
    >
      <p
        id={`${id}-title`}
        className={`text-sm font-semibold ${tone === "danger" ? "text-rose-800" : "text-slate-900"}`}
      >
        {question}
      </p>
      {details ? (
        <p id={`${id}-text`} className="mt-1 text-xs text-slate-700">
          {details}
        </p>
      ) : null}
      <div className="mt-2 flex gap-2">
        <Button variant={tone === "danger" ? "danger" : "primary"} size={size} onClick={onConfirm} disabled={pending}>
          {pending ? (pendingLabel ?? confirmLabel) : confirmLabel}
        </Button>
        <Button variant="secondary" size={size} onClick={() => setAsking(false)} disabled={pending}>
          Cancel
        </Button>
      </div>
    </div>
  );
}
