import Link from "next/link";
import { SignOutButton } from "@/components/auth/SignOutButton";
import { NavLink } from "./NavLink";

const LINKS = [
  { href: "/sessions", label: "Sessions" },
  { href: "/import", label: "Import" },
  { href: "/policies", label: "Policies" },
  { href: "/replays", label: "Replays" },
  { href: "/experiments", label: "Experiments" },
  { href: "/reports", label: "Reports" },
  { href: "/settings", label: "Settings" },
] as const;

export function AppNav({ user }: { user: { name: string; role: string } }) {
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex h-14 max-w-7xl items-center gap-8 px-6">
        <Link href="/sessions" className="flex items-center gap-2 font-semibold tracking-tight text-slate-900">
          <BranchMark />
          Branchpoint
        </Link>
        <nav aria-label="Main" className="flex items-center gap-1 text-sm">
          {LINKS.filter((l) => l.href !== "/import" || user.role !== "viewer").map((l) => (
            <NavLink key={l.href} href={l.href}>
              {l.label}
            </NavLink>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-3 text-sm text-slate-600">
          <span data-testid="signed-in-as">
            {user.name} <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">{user.role}</span>
          </span>
          <SignOutButton />
        </div>
      </div>
    </header>
  );
}

function BranchMark() {
  return (
    <svg width="20" height="20" viewBox="0 0 20 20" aria-hidden="true" className="text-indigo-600">
      <circle cx="5" cy="4" r="2.2" fill="currentColor" />
      <circle cx="5" cy="16" r="2.2" fill="currentColor" />
      <circle cx="15" cy="8" r="2.2" fill="currentColor" />
      <path d="M5 6v8M5 11c0-3 10-1 10-3" stroke="currentColor" strokeWidth="1.6" fill="none" />
    </svg>
  );
}
