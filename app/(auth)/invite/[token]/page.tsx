import type { Metadata } from "next";
import Link from "next/link";
import { NewAccountForm } from "@/components/auth/forms";
import { db } from "@/lib/db";
import { describeInvitation } from "@/lib/server/team/team";
import { acceptInvitationAction } from "@/lib/actions/auth";

export const metadata: Metadata = { title: "Invitation" };
export const dynamic = "force-dynamic";

const CLOSED = {
  unknown: "This invitation link is not valid.",
  revoked: "This invitation was withdrawn; ask an admin for a new one.",
  used: "This invitation was already used.",
  expired: "This invitation has expired; ask an admin for a new one.",
} as const;

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await describeInvitation(await db(), token);
  if (invitation.state !== "open") {
    return (
      <>
        <h1 className="mb-2 text-lg font-semibold text-slate-900">Invitation</h1>
        <p role="alert" className="text-sm text-red-700">
          {CLOSED[invitation.state]}
        </p>
        <p className="mt-4 text-sm">
          <Link href="/sign-in" className="text-indigo-700 underline">
            Sign in
          </Link>
        </p>
      </>
    );
  }
  return (
    <>
      <h1 className="mb-1 text-lg font-semibold text-slate-900">Join Branchpoint</h1>
      <p className="mb-4 text-sm text-slate-600">
        You are invited as <strong>{invitation.role}</strong>. The link works until{" "}
        {invitation.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC.
      </p>
      <NewAccountForm
        token={token}
        action={acceptInvitationAction}
        submitLabel="Create account"
        email={invitation.email}
      />
    </>
  );
}
