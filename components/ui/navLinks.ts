/** The dashboard's sections, in the order of the navigation bar; `key` is the second key of its "g" shortcut. */
export const NAV_LINKS = [
  { href: "/sessions", label: "Sessions", key: "s" },
  { href: "/import", label: "Import", key: "i" },
  { href: "/policies", label: "Policies", key: "p" },
  { href: "/replays", label: "Replays", key: "r" },
  { href: "/experiments", label: "Experiments", key: "e" },
  { href: "/checks", label: "Checks", key: "c" },
  { href: "/reports", label: "Reports", key: "o" },
  { href: "/settings", label: "Settings", key: "t" },
] as const;
