import type { Metadata } from "next";
import { TeamManager } from "@/components/team/TeamManager";
import { PageHeader } from "@/components/ui/PageHeader";
import { db } from "@/lib/db";
import { pagePrincipal } from "@/lib/http/principal";
import { can } from "@/lib/server/authz";
import { listTeam } from "@/lib/server/team/team";
import { changeRoleAction, inviteUserAction, setDeactivatedAction } from "@/lib/actions/team";

export const metadata: Metadata = { title: "Team" };
export const dynamic = "force-dynamic";

export default async function TeamPage() {
  const principal = await pagePrincipal();
  if (!can(principal, "users.manage")) {
    return <PageHeader title="Team" subtitle="Only admins manage people and roles." />;
  }
  const team = await listTeam(await db(), principal);
  return (
    <>
      <PageHeader
        title="Team"
        subtitle="Viewers read and open shares; analysts import, author policies, replay, supply fixtures, approve live calls and write reports; admins also manage people, executors and everyone's API keys."
      />
      <TeamManager
        users={team.users.map((u) => ({
          id: u.id,
          name: u.name,
          email: u.email,
          role: u.role,
          deactivated: Boolean(u.deactivatedAt),
          signIn: u.signIn.join(", ") || "—",
          self: u.id === principal.userId,
        }))}
        invitations={team.invitations.map((i) => ({
          id: i.id,
          role: i.role,
          email: i.email,
          expiresAt: i.expiresAt.toISOString(),
          createdBy: i.createdBy,
        }))}
        invite={inviteUserAction}
        changeRole={changeRoleAction}
        setDeactivated={setDeactivatedAction}
      />
    </>
  );
}
