import type { HTMLAttributes, ReactNode, Ref } from "react";

/** The panel look (white, bordered, rounded), for elements that must be something else (a link). */
export const CARD_CLASS = "rounded-lg border border-slate-200 bg-white";

const PADDING = { none: "", sm: "px-4 py-3", md: "p-4", lg: "p-5" } as const;

type CardProps = Omit<HTMLAttributes<HTMLElement>, "title"> & {
  /** The element: a section by default; a div inside grids and tables, a form, a details. */
  as?: "section" | "div" | "form" | "details" | "li" | "figure" | "p";
  title?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  /** Inner spacing: of the body under the header when there is one, of the panel itself when not. */
  padding?: keyof typeof PADDING;
  /** @deprecated use `padding="none"`. */
  padded?: boolean;
  noValidate?: boolean;
  ref?: Ref<HTMLElement>;
};

/**
 * A white panel with a border. `title` adds a header row (`actions` sit at its right) over a
 * padded body; without either, the children sit in the panel itself.
 */
export function Card({
  as = "section",
  title,
  actions,
  children,
  className = "",
  padding,
  padded = true,
  ...rest
}: CardProps) {
  const Tag = as as "section";
  const pad = PADDING[padding ?? (padded ? "md" : "none")];
  if (!title && !actions) {
    return (
      <Tag className={`${CARD_CLASS} ${pad} ${className}`.trim()} {...rest}>
        {children}
      </Tag>
    );
  }
  return (
    <Tag className={`${CARD_CLASS} ${className}`.trim()} {...rest}>
      <header className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-200 px-4 py-3">
        {title ? <h2 className="text-sm font-semibold text-slate-900">{title}</h2> : <span />}
        {actions ? <div className="flex items-center gap-2">{actions}</div> : null}
      </header>
      <div className={pad}>{children}</div>
    </Tag>
  );
}
