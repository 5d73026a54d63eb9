/**
 * The policies the replay form offers for one session: the presets adapted to
 * the session's adapter, capabilities and known tools (so each is valid as it
 * stands there), then the agent's saved versions, each with the caveats a
 * replay of this session would give.
 */
import { z } from "zod";
import { Adapter, Capability, checkPolicy, plainPolicy, Policy, type PolicyCheckContext } from "@/lib/replay";
import type { Db } from "@/lib/db";
import { hasModelEndpoint } from "@/lib/db/executors";
import { knownTools } from "@/lib/db/history";
import { policyVersionsForAgent } from "@/lib/db/policies";
import { sessionContext } from "@/lib/db/session-reads";
import { REPLAY_PRESET_WORDS } from "@/lib/policies/labels";
import {
  adaptationNote,
  REPLAY_PRESETS,
  replayChoiceValue,
  replayPresetPolicy,
  type PresetContext,
} from "@/lib/policies/presets";
import { notFound } from "@/lib/errors";
import { authorize } from "../authz";
import type { Principal } from "../principal";

export interface ReplayPolicyChoice {
  value: string;
  label: string;
  /** One line: what the choice does. */
  help?: string;
  /** What was changed to fit this session's adapter, when anything was. */
  note?: string;
  /** A document to send; absent for saved versions (sent by id). */
  policy?: Policy;
  versionId?: string;
  /** A saved version's model policy (a document carries its own). */
  model?: string;
  /** The policy's caveats for this session (adapter, capabilities, tools), in the rules' own words. */
  warnings: string[];
}

export const ReplayPresetsInput = z.object({ sessionId: z.string().min(1) });
export type ReplayPresetsInput = z.infer<typeof ReplayPresetsInput>;

export async function replayPresets(
  principal: Principal,
  input: ReplayPresetsInput,
  prisma: Db,
): Promise<ReplayPolicyChoice[]> {
  authorize(principal, "replays.read");
  authorize(principal, "policies.read");
  const session = await sessionContext(prisma, input.sessionId);
  if (!session) throw notFound("session", input.sessionId, "sessionId");
  const adapter = Adapter.safeParse(session.agent.adapter);
  const [tools, versions, forkLive] = await Promise.all([
    knownTools(prisma, session.agentId),
    policyVersionsForAgent(prisma, session.agentId),
    // Fork-live is offered only with a model endpoint to run on (or the demo model, on the demo data); the form
    // says why when there is none.
    hasModelEndpoint(prisma),
  ]);
  const context: PresetContext = {
    adapter: adapter.success ? adapter.data : "generic",
    capabilities: session.agentVersion.capabilities.filter((c): c is Capability => Capability.safeParse(c).success),
    tools,
  };
  const check: PolicyCheckContext = {
    adapter: context.adapter,
    capabilities: [...context.capabilities],
    knownTools: tools,
    use: "replay",
  };
  const warningsOf = (document: unknown): string[] => {
    const result = checkPolicy(document, check);
    return [...result.errors, ...result.warnings].map((i) => i.message);
  };
  const note = adaptationNote(context);
  // The demo sessions have the built-in demo model to fork onto.
  const presets = REPLAY_PRESETS.filter((p) => p !== "fork-live" || forkLive || session.demo).map(
    (preset): ReplayPolicyChoice => {
      const policy = replayPresetPolicy(preset, context);
      return {
        value: replayChoiceValue(preset),
        label: REPLAY_PRESET_WORDS[preset].label,
        help: REPLAY_PRESET_WORDS[preset].help,
        ...(note ? { note } : {}),
        // Plain JSON: an adapted override map has no prototype, which React does not pass to the form.
        policy: plainPolicy(policy),
        warnings: warningsOf(policy),
      };
    },
  );
  const saved = versions.map((v): ReplayPolicyChoice => {
    const parsed = Policy.safeParse(v.document);
    return {
      value: `version:${v.id}`,
      label: `${v.policy.name} v${v.version} (${v.hash.slice(0, 10)})`,
      versionId: v.id,
      ...(parsed.success ? { model: parsed.data.model } : {}),
      warnings: parsed.success ? warningsOf(parsed.data) : parsed.error.issues.map((i) => i.message),
    };
  });
  return [...presets, ...saved];
}
