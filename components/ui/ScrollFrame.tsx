import type { HTMLAttributes, ReactNode } from "react";

/**
 * A box whose content may scroll: it takes focus, so a keyboard can scroll it too, and with a
 * `label` it is a named region, so a screen reader says what it holds.
 */
export function ScrollFrame({
  as: Tag = "div",
  label,
  children,
  ...rest
}: {
  as?: "div" | "pre";
  label?: string;
  children: ReactNode;
} & Omit<HTMLAttributes<HTMLElement>, "role" | "tabIndex" | "aria-label" | "children">) {
  return (
    <Tag {...rest} tabIndex={0} {...(label ? { role: "region", "aria-label": label } : {})}>
      {children}
    </Tag>
  );
}
