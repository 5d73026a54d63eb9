import Link from "next/link";

/** The agents as links that keep the rest of the page (`base?agent=<name>`); the chosen one marked. */
export function AgentTabs({
  agents,
  current,
  base,
}: {
  agents: { id: string; name: string }[];
  current: string | null;
  base: string;
}) {
  return (
    <nav aria-label="Agents" className="mb-4 flex flex-wrap gap-2 text-sm">
      {agents.map((a) => (
        <Link
          key={a.id}
          href={`${base}?agent=${encodeURIComponent(a.name)}`}
          aria-current={a.name === current ? "page" : undefined}
          className={`rounded-full px-3 py-1 ring-1 ring-inset ${
            a.name === current
              ? "bg-indigo-600 font-medium text-white ring-indigo-600"
              : "text-slate-700 ring-slate-300 hover:bg-slate-50"
          }`}
        >
          {a.name}
        </Link>
      ))}
    </nav>
  );
}
