import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/forms";
import { db } from "@/lib/db";
import { env } from "@/lib/env";
import { signedInPrincipal } from "@/lib/http/principal";
import { needsSetup } from "@/lib/server/team/team";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; error?: string }>;
}) {
  const { next, error } = await searchParams;
  if (await signedInPrincipal()) redirect("/sessions");
  const settings = env();
  const sso =
    settings.BRANCHPOINT_OIDC_ISSUER && settings.BRANCHPOINT_OIDC_CLIENT_ID
      ? { name: settings.BRANCHPOINT_OIDC_NAME }
      : null;
  const firstRun = await needsSetup(await db());
  return (
    <>
      <h1 className="mb-1 text-lg font-semibold text-slate-900">Sign in to Branchpoint</h1>
      {firstRun ? (
        <p className="mb-4 rounded-md bg-amber-50 p-3 text-sm text-amber-900">
          No account exists yet. Open the setup link the server printed when it started (
          <code className="font-mono">/setup?token=…</code>) to create the first admin.
        </p>
      ) : (
        <p className="mb-4 text-sm text-slate-600">Use the account an admin invited you to, or single sign-on.</p>
      )}
      {error ? (
        <p role="alert" className="mb-4 text-sm text-red-700">
          Single sign-on did not complete ({error}).
        </p>
      ) : null}
      <SignInForm next={next} sso={sso} />
      <p className="mt-6 text-xs text-slate-500">
        Shared report links open without an account. <Link href="/api/health">Server status</Link>
      </p>
    </>
  );
}
