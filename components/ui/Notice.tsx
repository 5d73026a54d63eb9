import type { ReactNode } from "react";

const TONES = {
  error: "border-rose-200 bg-rose-50 text-rose-800",
  warning: "border-amber-200 bg-amber-50 text-amber-900",
  info: "border-indigo-200 bg-indigo-50 text-indigo-900",
  success: "border-emerald-200 bg-emerald-50 text-emerald-900",
} as const;
export type NoticeTone = keyof typeof TONES;

/**
 * A boxed message. Errors are announced to screen readers as they appear
 * (role="alert"); the other tones are polite status messages.
 */
export function Notice({
  tone = "info",
  title,
  children,
  className = "",
  small = false,
  testId,
}: {
  tone?: NoticeTone;
  title?: ReactNode;
  children?: ReactNode;
  className?: string;
  /** Smaller text, for a notice inside a dense panel. */
  small?: boolean;
  testId?: string;
}) {
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      data-testid={testId}
      className={`rounded-md border px-3 py-2 ${small ? "text-xs" : "text-sm"} ${TONES[tone]} ${className}`}
    >
      {title ? <div className="font-medium">{title}</div> : null}
      {children ? <div className={title ? "mt-1" : ""}>{children}</div> : null}
    </div>
  );
}
