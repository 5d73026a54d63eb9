import { route } from "@/lib/http/route";
import { AgentOfCheckBody, AttachCheckBody, attachCheck, detachCheck } from "@/lib/server/checks/online";

export const dynamic = "force-dynamic";

/**
 * `{ agentId | agentName, fromVersion?, dailyBudgetUsd?, judgeCallUsd? }` → the check judges every session of the
 * agent imported from now on (of `fromVersion` and later versions, or all): `201 { attachment }`, or `200` when
 * it was attached already and its version or budget changed.
 */
export const POST = route<{ id: string }, undefined, typeof AttachCheckBody>(
  { accept: ["api_key"], authorize: "checks.write", body: AttachCheckBody },
  async ({ params, body, prisma, principal }) => {
    const { created, attachment } = await attachCheck(principal, { ...body, checkId: params.id }, prisma);
    return Response.json({ attachment }, { status: created ? 201 : 200 });
  },
);

/** `?agentId=|agentName=` → detached: `200 { detached }`; the verdicts it gave stay. */
export const DELETE = route<{ id: string }, typeof AgentOfCheckBody>(
  { accept: ["api_key"], authorize: "checks.write", query: AgentOfCheckBody },
  async ({ params, query, prisma, principal }) => {
    return Response.json(await detachCheck(principal, { ...query, checkId: params.id }, prisma));
  },
);
