import { describe, expect, it } from "vitest";
import { Adapter, checkPolicy, SideEffect, validatePolicy, type IssueCode, type KnownTool } from "@/lib/replay";
import {
  PRESETS,
  presetPolicy,
  presetsFor,
  replayPresetPolicy,
  type Preset,
  type PresetContext,
  type ReplayPreset,
} from "./presets";

/** One known tool of each side-effect class. */
const EVERY_KIND: KnownTool[] = SideEffect.options.map((sideEffect) => ({ name: `tool_${sideEffect}`, sideEffect }));
const REPLAY_PRESETS: ReplayPreset[] = ["recommended", "recorded", "fork-live"];

/** The adapters that reject `llm`: the simulated preset is left out for them. */
const REJECTS_LLM: Adapter[] = ["pydantic-ai", "mastra", "vercel-ai-sdk"];

/**
 * The only warnings a preset gives, listed and explained. Everything not
 * listed here gives none.
 * - LangGraph replays a history match only from a recorded ToolMessage or
 *   Command envelope: every preset that answers from history says so.
 * - `llm` is unverified outside the adapters that reject it.
 */
const LISTED: Partial<Record<Adapter, Partial<Record<`preset:${Preset}` | `replay:${ReplayPreset}`, IssueCode[]>>>> = {
  langgraph: {
    "preset:recommended": ["langgraph_history_envelope"],
    "preset:recorded-only": ["langgraph_history_envelope"],
    "preset:pause-for-fixture": ["langgraph_history_envelope"],
    "preset:live-readonly": ["langgraph_history_envelope"],
    "preset:simulated": ["llm_adapter_unverified"],
    "replay:recommended": ["langgraph_history_envelope"],
    "replay:recorded": ["langgraph_history_envelope"],
    "replay:fork-live": ["langgraph_history_envelope"],
  },
  "openai-agents": { "preset:simulated": ["llm_adapter_unverified"] },
  generic: { "preset:simulated": ["llm_adapter_unverified"] },
};

function check(document: unknown, context: PresetContext) {
  return validatePolicy(document, {
    adapter: context.adapter,
    capabilities: [...context.capabilities],
    inExperiment: false,
    knownTools: [...context.tools],
  });
}

describe("presets, every adapter × every preset", () => {
  for (const adapter of Adapter.options) {
    for (const [toolsName, tools] of [
      ["known tools of every kind", EVERY_KIND],
      ["no known tools", []],
    ] as const) {
      const context: PresetContext = { adapter, capabilities: ["overrides", "tool_policies"], tools };
      it(`${adapter}, ${toolsName}: the offered presets have no error and only the listed warnings`, () => {
        const offered = presetsFor(context);
        expect(offered).toEqual(
          REJECTS_LLM.includes(adapter) ? PRESETS.filter((p) => p !== "simulated") : [...PRESETS],
        );
        for (const preset of offered) {
          const result = check(presetPolicy(preset, context), context);
          expect({ preset, errors: result.errors }).toEqual({ preset, errors: [] });
          expect({ preset, warnings: result.warnings.map((w) => w.code) }).toEqual({
            preset,
            warnings: LISTED[adapter]?.[`preset:${preset}`] ?? [],
          });
        }
        for (const preset of REPLAY_PRESETS) {
          const policy = replayPresetPolicy(preset, context);
          const strict = check(policy, context);
          const expected = LISTED[adapter]?.[`replay:${preset}`] ?? [];
          expect({ preset, errors: strict.errors, warnings: strict.warnings.map((w) => w.code) }).toEqual({
            preset,
            errors: [],
            warnings: expected,
          });
          // The replay form's check says the same.
          const replay = checkPolicy(policy, {
            ...context,
            knownTools: [...tools],
            capabilities: [...context.capabilities],
            use: "replay",
          });
          expect(replay.errors).toEqual([]);
          expect(replay.warnings.map((w) => w.code)).toEqual(expected);
        }
      });
    }
  }
});

describe("what the adaptation does", () => {
  const harbor: PresetContext = {
    adapter: "openai-agents",
    capabilities: ["overrides", "tool_policies"],
    tools: [
      { name: "lookup_order", sideEffect: "read" },
      { name: "refund_payment", sideEffect: "external_mutation" },
    ],
  };

  it("OpenAI Agents: a live default that asks before each call, each known tool keeps the preset's rule by name", () => {
    expect(replayPresetPolicy("recommended", harbor)).toEqual({
      model: "recorded-only",
      drift: "continue_to_terminal",
      maxSteps: 100,
      tools: {
        default: { type: "passthrough", approval: "per_call" },
        overrides: {
          lookup_order: { type: "history", scope: "baseline", on_miss: "pause" },
          refund_payment: { type: "history", scope: "baseline", on_miss: "pause" },
        },
      },
    });
    // live-readonly: the read-only tool's own live rule stays; the other answers from history.
    expect(presetPolicy("live-readonly", harbor).tools).toEqual({
      default: { type: "passthrough", approval: "per_call" },
      overrides: {
        lookup_order: { type: "passthrough" },
        refund_payment: { type: "history", scope: "baseline", on_miss: "pause" },
      },
    });
    // No known tools: nothing to name, the default alone.
    expect(presetPolicy("recorded-only", { ...harbor, tools: [] }).tools).toEqual({
      default: { type: "passthrough", approval: "per_call" },
    });
  });

  it("the replay presets: recorded only has no step budget; fork-live is the recommended default with the model forked", () => {
    const generic: PresetContext = { adapter: "generic", capabilities: [], tools: [] };
    expect(replayPresetPolicy("recorded", generic)).toEqual({
      model: "recorded-only",
      drift: "continue_to_terminal",
      tools: { default: { type: "history", scope: "baseline", on_miss: "fail" } },
    });
    expect(replayPresetPolicy("fork-live", generic)).toEqual({
      ...replayPresetPolicy("recommended", generic),
      model: "recorded-until-divergence",
    });
    expect(replayPresetPolicy("recommended", null)).toEqual(presetPolicy("recommended", null));
  });

  it("without the tool_policies capability every preset is still offered, and only the all-live one is free of the runtime caveat", () => {
    const bare: PresetContext = { adapter: "pydantic-ai", capabilities: ["overrides"], tools: EVERY_KIND };
    expect(presetsFor(bare)).toEqual(PRESETS.filter((p) => p !== "simulated"));
    const clean = presetsFor(bare).filter((p) => check(presetPolicy(p, bare), bare).errors.length === 0);
    expect(clean).toEqual(["live-explicit"]);
  });

  it("no agent: every preset, as it is", () => {
    expect(presetsFor(null)).toEqual([...PRESETS]);
  });
});
