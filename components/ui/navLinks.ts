/**
 * The dashboard's sections, in the order of the navigation bar. `key` is the second key of its "g" shortcut;
 * `also` are earlier keys that still work where no section has taken them.
 */
export const NAV_LINKS: readonly { href: string; label: string; key: string; also?: readonly string[] }[] = [
  { href: "/sessions", label: "Sessions", key: "h" },
  { href: "/import", label: "Import", key: "i" },
  { href: "/policies", label: "Policies", key: "p" },
  { href: "/replays", label: "Replays", key: "b" },
  { href: "/investigations", label: "Investigations", key: "v" },
  { href: "/experiments", label: "Experiments", key: "e" },
  { href: "/datasets", label: "Datasets", key: "d" },
  { href: "/checks", label: "Checks", key: "c" },
  { href: "/failures", label: "Failures", key: "f" },
  { href: "/reviews", label: "Reviews", key: "w" },
  { href: "/reports", label: "Reports", key: "r", also: ["o"] },
  { href: "/settings", label: "Settings", key: "s", also: ["t"] },
];

/** The section a key pressed after "g" goes to, if any. */
export function navLinkForKey(key: string): (typeof NAV_LINKS)[number] | undefined {
  return NAV_LINKS.find((l) => l.key === key) ?? NAV_LINKS.find((l) => l.also?.includes(key));
}
