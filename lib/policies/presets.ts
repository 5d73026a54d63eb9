import {
  overrideMap,
  RECOMMENDED_RCA_POLICY,
  toolLevelPreset,
  ToolLevel,
  validatePolicy,
  Adapter,
  type Capability,
  type KnownTool,
  type Policy,
  type ToolsPolicy,
} from "@/lib/replay";
import type { Preset } from "./labels";

export type { Preset };

/** Every preset, in the order the forms offer them. */
export const PRESETS: readonly Preset[] = ["recommended", ...ToolLevel.options];

/** What a preset is adapted to: the agent's framework, its declared capabilities and its known tools. */
export interface PresetContext {
  adapter: Adapter;
  capabilities: readonly Capability[];
  tools: readonly KnownTool[];
}

/**
 * The tool rules of a preset, adapted to the adapter. OpenAI Agents cannot
 * replay from a `history` default (Kitaru's advice for that adapter: "Keep its
 * default as `passthrough` and add a named `history` override for each direct
 * function tool you want to replay"). There the default becomes a live tool
 * that asks before each call (a tool nobody has seen yet has unknown side
 * effects, so it never runs unasked) and each known tool keeps the preset's
 * rule by name.
 */
function adaptedTools(tools: ToolsPolicy, context: PresetContext | null): ToolsPolicy {
  if (context?.adapter !== "openai-agents" || tools.default.type !== "history") return tools;
  const named = context.tools.map((t) => [t.name, tools.overrides?.[t.name] ?? tools.default] as const);
  return {
    default: { type: "passthrough", approval: "per_call" },
    ...(named.length > 0 ? { overrides: overrideMap(named) } : {}),
  };
}

/** The document a preset stands for, for this agent (null: no agent, the preset as it is). */
export function presetPolicy(preset: Preset, context: PresetContext | null): Policy {
  const { tools: _tools, ...runLevel } = RECOMMENDED_RCA_POLICY;
  void _tools;
  const tools =
    preset === "recommended"
      ? RECOMMENDED_RCA_POLICY.tools
      : toolLevelPreset(preset, { knownTools: context?.tools ?? [] });
  return { ...runLevel, tools: adaptedTools(tools, context) };
}

/** The replay form's presets: the recommended default, recorded only, and fork-live (the recommended default with the model run live from the first changed input). */
export type ReplayPreset = "recommended" | "recorded" | "fork-live";
export const REPLAY_PRESETS: readonly ReplayPreset[] = ["recommended", "recorded", "fork-live"];

/** The replay form's value for a preset (`preset:recommended`…), the one URLs and tests name. */
export function replayChoiceValue(preset: ReplayPreset): `preset:${ReplayPreset}` {
  return `preset:${preset}`;
}

/** The fork-live choice: the form proposes it when the analyst adds an edit. */
export const FORK_LIVE_CHOICE = replayChoiceValue("fork-live");

/** What the adaptation changed, in a sentence the forms show beside an adapted preset (null: nothing changed). */
export function adaptationNote(context: PresetContext | null): string | null {
  if (context?.adapter !== "openai-agents") return null;
  return context.tools.length > 0
    ? "Adapted to OpenAI Agents, which cannot answer every tool from the record by default: each known tool is named with its own rule, and a tool not seen before runs live only after you approve the call."
    : "Adapted to OpenAI Agents, which cannot answer every tool from the record by default: no tool of this agent is known yet, so each tool call runs live only after you approve it.";
}

export function replayPresetPolicy(preset: ReplayPreset, context: PresetContext | null): Policy {
  switch (preset) {
    case "recommended":
      return presetPolicy("recommended", context);
    case "recorded": {
      // No step budget: a recorded replay copies the record, however long it is.
      const { maxSteps: _maxSteps, ...recorded } = presetPolicy("recorded-only", context);
      void _maxSteps;
      return recorded;
    }
    case "fork-live":
      return { ...presetPolicy("recommended", context), model: "recorded-until-divergence" };
  }
}

/**
 * Whether a preset's document stands for this adapter: no rule the adapter
 * rejects (`llm` for PydanticAI, Mastra and the AI SDK). Capabilities are not
 * a reason to leave a preset out: Branchpoint's engine intercepts every tool
 * itself, and an agent version without `tool_policies` hears that caveat beside
 * any preset but the all-live one.
 */
export function presetFits(preset: Preset, context: PresetContext): boolean {
  const result = validatePolicy(presetPolicy(preset, context), {
    adapter: context.adapter,
    capabilities: ["overrides", "tool_policies"],
    inExperiment: false,
    knownTools: [...context.tools],
  });
  return result.ok;
}

/** The presets offered for an agent of this adapter (what fits depends on the adapter alone); an unknown adapter reads as generic. */
export function presetsForAdapter(adapter: string | null): Preset[] {
  if (adapter === null) return presetsFor(null);
  const parsed = Adapter.safeParse(adapter);
  return presetsFor({ adapter: parsed.success ? parsed.data : "generic", capabilities: [], tools: [] });
}

/** The presets offered for an agent (null: no agent chosen, every preset). */
export function presetsFor(context: PresetContext | null): Preset[] {
  return context === null ? [...PRESETS] : PRESETS.filter((p) => presetFits(p, context));
}
