"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState } from "react";
import { Kbd } from "./Kbd";
import { OPEN_PALETTE_EVENT } from "./KeyboardShortcuts";
import { SignOutButton } from "@/components/auth/SignOutButton";
import { NavLink } from "./NavLink";
import { NAV_LINKS } from "./navLinks";
import { ThemeToggle } from "./ThemeToggle";

/** The top bar: sections inline on a wide screen (1280 px and up), behind a menu button below that. */
export function AppNav({ user }: { user?: { name: string; role: string } | undefined }) {
  // Import is an analyst's action: a viewer is not shown the door.
  const links = NAV_LINKS.filter((l) => l.href !== "/import" || user?.role !== "viewer");
  const [open, setOpen] = useState(false);
  const pathname = usePathname();
  const [shownFor, setShownFor] = useState(pathname);
  // Close the phone menu when the page changes.
  if (shownFor !== pathname) {
    setShownFor(pathname);
    setOpen(false);
  }
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex h-14 max-w-7xl items-center gap-4 px-4 sm:px-6 lg:gap-6 xl:gap-2 xl:px-4 2xl:gap-6 2xl:px-6">
        <Link href="/sessions" className="flex items-center gap-2 font-semibold tracking-tight text-slate-900">
          <BranchMark />
          {/* Between 1280 and 1536 px the sections need the room: the mark alone, its name still read out. */}
          <span className="xl:max-2xl:sr-only">Branchpoint</span>
        </Link>
        {/* Eleven sections fit beside the tools at 1280 px with tighter spacing and the theme as icons; wider screens get the roomy one. */}
        <nav aria-label="Main" className="hidden items-center gap-1 text-sm xl:flex xl:gap-0 2xl:gap-1">
          {links.map((l) => (
            <NavLink key={l.href} href={l.href}>
              {l.label}
            </NavLink>
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-2">
          <button
            type="button"
            onClick={() => window.dispatchEvent(new Event(OPEN_PALETTE_EVENT))}
            className="flex items-center gap-2 rounded-md border border-slate-200 px-2 py-1 text-sm whitespace-nowrap text-slate-600 hover:bg-slate-50 hover:text-slate-900"
            aria-label="Go to… (Ctrl K)"
          >
            {/* A phone has no Ctrl key: there the button says what it does instead of showing the chord. */}
            <span className="whitespace-nowrap sm:hidden 2xl:inline">Go to…</span>
            <span className="hidden sm:inline" data-testid="palette-chord">
              <Kbd>Ctrl K</Kbd>
            </span>
          </button>
          <div className="hidden sm:block">
            <ThemeToggle />
          </div>
          {user ? (
            <div className="hidden items-center gap-2 sm:flex">
              <SignedInAs user={user} />
              <SignOutButton />
            </div>
          ) : null}
          <button
            type="button"
            className="rounded-md border border-slate-200 px-2 py-1 text-sm text-slate-700 xl:hidden"
            aria-expanded={open}
            aria-controls="phone-nav"
            onClick={() => setOpen((o) => !o)}
          >
            Menu
          </button>
        </div>
      </div>
      {open ? (
        <nav id="phone-nav" aria-label="Main" className="border-t border-slate-200 px-4 py-2 xl:hidden">
          <ul className="flex flex-col text-sm">
            {links.map((l) => (
              <li key={l.href} className="flex flex-col">
                <NavLink href={l.href}>{l.label}</NavLink>
              </li>
            ))}
          </ul>
          <div className="mt-2 flex flex-wrap items-center gap-2 border-t border-slate-100 pt-2 sm:hidden">
            <ThemeToggle labelled />
            {user ? (
              <>
                <SignedInAs user={user} />
                <SignOutButton />
              </>
            ) : null}
          </div>
        </nav>
      ) : null}
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

/** Who is signed in: the role always, the name on wide screens (and as the badge's tooltip). */
function SignedInAs({ user }: { user: { name: string; role: string } }) {
  return (
    <span data-testid="signed-in-as" className="flex items-center gap-1 text-sm whitespace-nowrap text-slate-600">
      <span className="hidden max-w-48 truncate 2xl:inline">{user.name}</span>{" "}
      <span title={user.name} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">
        {user.role}
      </span>
    </span>
  );
}
