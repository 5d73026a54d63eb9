type Named = { id: string; title: string | null; externalId: string | null };

/** A session's name in page titles and breadcrumbs: its title, else the id it came with, else ours. */
export const sessionName = (s: Named) => s.title ?? s.externalId ?? s.id;

/** The breadcrumbs down to a session's own page, where the pages about that session start theirs. */
export function sessionCrumbs(s: Named) {
  return [
    { href: "/sessions", label: "Sessions" },
    { href: `/sessions/${s.id}`, label: sessionName(s) },
  ];
}
