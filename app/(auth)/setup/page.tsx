import type { Metadata } from "next";
import Link from "next/link";
import { NewAccountForm } from "@/components/auth/forms";
import { db } from "@/lib/db";
import { needsSetup } from "@/lib/server/team/team";
import { completeSetupAction } from "@/lib/actions/auth";

export const metadata: Metadata = { title: "Set up" };
export const dynamic = "force-dynamic";

export default async function SetupPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  if (!(await needsSetup(await db()))) {
    return (
      <>
        <h1 className="mb-2 text-lg font-semibold text-slate-900">Already set up</h1>
        <p className="text-sm text-slate-600">
          This Branchpoint has its admin; the setup link no longer works.{" "}
          <Link href="/sign-in" className="text-indigo-700 underline">
            Sign in
          </Link>
          .
        </p>
      </>
    );
  }
  if (!token) {
    return (
      <>
        <h1 className="mb-2 text-lg font-semibold text-slate-900">Set up Branchpoint</h1>
        <p className="text-sm text-slate-600">
          Open the link the server printed when it started: it carries a one-time token (
          <code className="font-mono">/setup?token=…</code>).
        </p>
      </>
    );
  }
  return (
    <>
      <h1 className="mb-1 text-lg font-semibold text-slate-900">Create the first admin</h1>
      <p className="mb-4 text-sm text-slate-600">
        This account manages users, roles, executors and API keys. The demo sessions are waiting on the next page.
      </p>
      <NewAccountForm token={token} action={completeSetupAction} submitLabel="Create admin and sign in" />
    </>
  );
}
