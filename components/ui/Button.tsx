import Link from "next/link";
import type { ButtonHTMLAttributes, ComponentProps } from "react";

const VARIANTS = {
  /** The one main action of a form or page. */
  primary: "bg-indigo-600 text-white shadow-sm hover:bg-indigo-500",
  /** Other actions. */
  secondary: "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50",
  /** Irreversible actions (revoke, delete). */
  danger: "bg-rose-600 text-white shadow-sm hover:bg-rose-500",
  /** A quiet action inside a row or panel. */
  ghost: "text-slate-600 hover:bg-slate-100 hover:text-slate-900",
} as const;
const SIZES = { sm: "px-2.5 py-1 text-xs", md: "px-3 py-1.5 text-sm" } as const;

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

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; size?: ButtonSize };

/** A button; `type` defaults to "button" so it never submits a form by accident. */
export function Button({ variant, size, className, type = "button", ...rest }: ButtonProps) {
  return <button type={type} className={buttonClass({ variant, size, className })} {...rest} />;
}

type ButtonLinkProps = ComponentProps<typeof Link> & { variant?: ButtonVariant; size?: ButtonSize };

/** A link that looks like a button (navigation, not an action). */
export function ButtonLink({ variant, size, className, ...rest }: ButtonLinkProps) {
  return <Link className={buttonClass({ variant, size, className })} {...rest} />;
}
