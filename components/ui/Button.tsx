import Link from "next/link";
import type { ButtonHTMLAttributes, ComponentProps } from "react";

const VARIANTS = {
  /** The one main action of a form or page. */
  primary: "bg-indigo-600 text-white shadow-sm hover:bg-indigo-500",
  /** Other actions. */
  secondary: "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50",
  /** Irreversible actions (revoke, delete), once confirmed. */
  danger: "bg-rose-600 text-white shadow-sm hover:bg-rose-500",
  /** The button that starts an irreversible action (it asks first, or it is small and in a row). */
  dangerOutline: "border border-rose-300 bg-white text-rose-700 hover:bg-rose-50",
  /** An action on a green notice (copy the new key or link). */
  success: "border border-emerald-300 bg-white text-emerald-800 hover:bg-emerald-100",
  /** An action on an indigo notice (cancel a running job). */
  accent: "border border-indigo-300 bg-white text-indigo-900 hover:bg-indigo-100",
  /** A quiet action inside a row or panel. */
  ghost: "text-slate-600 hover:bg-slate-100 hover:text-slate-900",
  /** A quiet removal inside a row or panel. */
  dangerGhost: "text-rose-700 hover:bg-rose-50",
  /** An action that reads as a link, inside text or a table cell. */
  link: "text-indigo-700 hover:underline",
  /** An underlined action inside a notice's text, in the notice's colour. */
  inherit: "underline",
  /** A removal that reads as a link. */
  dangerLink: "text-rose-700 hover:underline",
} as const;
const SIZES = {
  xs: "px-2 py-0.5 text-xs",
  sm: "px-2.5 py-1 text-xs",
  md: "px-3 py-1.5 text-sm",
  /** Full-size form buttons (sign-in and account forms). */
  lg: "px-3 py-2 text-sm",
  /** A one-character button (↑, ↓, ×); the text size is the surrounding one. */
  icon: "px-1.5",
  /** No padding, the surrounding text size: for the link variants. */
  inline: "",
} as const;

export type ButtonVariant = keyof typeof VARIANTS;
export type ButtonSize = keyof typeof SIZES;

/** The class string of a button, for elements that must stay links or anchors. */
export function buttonClass({
  variant = "primary",
  size = "md",
  className = "",
}: { variant?: ButtonVariant; size?: ButtonSize; className?: string } = {}): string {
  return `inline-flex items-center justify-center gap-1.5 rounded-md font-medium disabled:cursor-not-allowed disabled:opacity-50 ${VARIANTS[variant]} ${SIZES[size]} ${className}`.trim();
}

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; size?: ButtonSize };

/** A button; `type` defaults to "button" so it never submits a form by accident. */
export function Button({ variant, size, className, type = "button", ...rest }: ButtonProps) {
  return <button type={type} className={buttonClass({ variant, size, className })} {...rest} />;
}

type ButtonLinkProps = ComponentProps<typeof Link> & { variant?: ButtonVariant; size?: ButtonSize };

/** A link that looks like a button (navigation, not an action). */
export function ButtonLink({ variant, size, className, ...rest }: ButtonLinkProps) {
  return <Link className={buttonClass({ variant, size, className })} {...rest} />;
}
