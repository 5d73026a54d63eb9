import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/ui/PageHeader";
import { CARD_CLASS } from "@/components/ui/Card";

export const metadata: Metadata = { title: "Settings" };

const SECTIONS = [
  {
    href: "/settings/api-keys",
    title: "API keys",
    action: "Manage API keys",
    text: "Keys for the HTTP API (/api/v1) and for trace exporters (/v1/traces). Create one per script or service; revoke it when it leaks.",
  },
  {
    href: "/settings/executors",
    title: "Executors",
    action: "Set up executors",
    text: "Live model endpoints, live tool endpoints and the hosts they may call, for replays that run steps live.",
  },
  {
    href: "/settings/connectors",
    title: "Connectors",
    action: "Import from Langfuse",
    text: "Pull the traces your agents already send to Langfuse, as sessions you can replay: by time range, tags, user, session or name.",
  },
  {
    href: "/settings/prices",
    title: "Prices",
    action: "See the prices",
    text: "List prices per million tokens that estimate a session's cost when its source gave none; admins add new versions.",
  },
  {
    href: "/settings/team",
    title: "Team",
    action: "Manage the team",
    text: "People, roles and invitation links; deactivate someone to end their sessions and stop their keys (admins).",
  },
  {
    href: "/settings/audit",
    title: "Audit log",
    action: "Read the audit log",
    text: "Who signed in, changed a role, made or revoked a key, changed an executor, approved a live call or shared a report (admins).",
  },
  {
    href: "/settings/jobs",
    title: "Jobs",
    action: "See the jobs",
    text: "Replays waiting for a worker, running, and failed, with who runs them; retry a failed one.",
  },
] as const;

export default function SettingsPage() {
  return (
    <>
      <PageHeader title="Settings" subtitle="How scripts, exporters and live executors reach Branchpoint." />
      <ul className="grid gap-4 sm:grid-cols-2">
        {SECTIONS.map((s) => (
          <li key={s.href}>
            <Link
              href={s.href}
              className={`${CARD_CLASS} block h-full p-5 shadow-sm transition hover:border-indigo-300 hover:shadow`}
            >
              <h2 className="font-semibold text-slate-900">{s.title}</h2>
              <p className="mt-1 text-sm text-slate-600">{s.text}</p>
              <span className="mt-3 inline-block text-sm font-medium text-indigo-700">{s.action} →</span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
