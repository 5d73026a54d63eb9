import type {
  Approval,
  DriftPolicy,
  HistoryScope,
  MatchMode,
  ModelPolicy,
  OnMiss,
  SideEffect,
  ToolLevel,
  ToolRuleType,
} from "@/lib/replay";

/**
 * The words the policy and replay forms show for each value of the policy
 * document's enums: a plain label and one line saying what it does. The raw
 * value stays what the JSON holds (forms show it small beside the words, for
 * people who write the document by hand). Each dictionary is a `Record` over
 * its enum, so a new value without words is a type error, not a raw value on
 * screen.
 */
export interface Words {
  /** A few plain words, as a choice in a list. */
  label: string;
  /** One line: what choosing it does. */
  help: string;
}

export const MODEL_WORDS: Record<ModelPolicy, Words> = {
  "recorded-only": {
    label: "Recorded outputs",
    help: "Every model step copies the output captured in the record: the strongest evidence, but edits cannot change what the agent says next.",
  },
  "recorded-until-divergence": {
    label: "Recorded until an input changes, then live",
    help: "Copies the recorded outputs while the model is sent what it was sent before, and runs the model live from the first step whose input differs (fork-live).",
  },
  "determinism-probe": {
    label: "Repeat recorded inputs",
    help: "Sends each recorded input to the model several times and reports how much the answers vary.",
  },
  "pinned-live": {
    label: "Live, same model",
    help: "Runs every model step live on the recorded model (pinned); the outputs may drift from the record.",
  },
  "compatible-live": {
    label: "Live, substitute model",
    help: "Runs every model step live on another compatible model: useful to compare models, weaker evidence for the recorded run.",
  },
  "provider-fixture": {
    label: "Supplied model outputs",
    help: "Takes each model output from a fixture set supplied for the run instead of the record or a live model.",
  },
  blocked: {
    label: "No model steps",
    help: "Allows no model step: the branch stops at the first one.",
  },
};

export const DRIFT_WORDS: Record<DriftPolicy, Words> = {
  stop_on_first_divergence: {
    label: "Stop at the first difference",
    help: "Ends the branch at the first step that differs from the record, to isolate the earliest change.",
  },
  continue_to_terminal: {
    label: "Run to the end",
    help: "Keeps going after differences until the agent finishes, so the final answers can be compared.",
  },
  continue_until_budget: {
    label: "Run until the budget is spent",
    help: "Keeps going after differences until the step, token, cost or live-call budget is reached: for long runs.",
  },
};

export const RULE_TYPE_WORDS: Record<ToolRuleType, Words> = {
  history: {
    label: "Recorded result",
    help: "Answers with the result recorded for the same tool and arguments.",
  },
  static: {
    label: "Configured results",
    help: "Answers with the first configured case whose arguments match.",
  },
  fixture: {
    label: "Analyst-supplied result",
    help: "Answers with a result an analyst supplies for this branch.",
  },
  passthrough: {
    label: "Run the real tool",
    help: "Executes the live tool through its configured executor.",
  },
  llm: {
    label: "Simulated by a model",
    help: "A model writes the tool's result from the call and your instructions.",
  },
  blocked: {
    label: "Refuse the call",
    help: "Nothing runs: the agent gets a tool error.",
  },
};

export const ON_MISS_WORDS: Record<OnMiss, Words> = {
  fail: {
    label: "Stop the replay",
    help: "Ends the branch as failed at the first call without an answer; nothing runs live.",
  },
  error_result: {
    label: "Return a tool error",
    help: "Gives the agent a tool error for that call and carries on.",
  },
  pause: {
    label: "Pause for a fixture",
    help: "Stops the branch and waits for an analyst to supply the missing result.",
  },
  passthrough: {
    label: "Run the real tool",
    help: "Executes the live tool when nothing answers: only for tools declared read-only.",
  },
};

export const SCOPE_WORDS: Record<HistoryScope, Words> = {
  baseline: {
    label: "This session",
    help: "Results recorded in the session being replayed, consumed in the order they were called.",
  },
  agent: {
    label: "Any session of the agent",
    help: "The newest completed result for the same call in any recorded session of this agent.",
  },
  cohort_version: {
    label: "Any session of the experiment's cohort",
    help: "The newest completed result among the sessions an experiment runs over; a replay of one session refuses it.",
  },
};

export const MATCH_MODE_WORDS: Record<MatchMode, Words> = {
  exact: {
    label: "Arguments equal",
    help: "The call's arguments are exactly the match.",
  },
  subset: {
    label: "Arguments include",
    help: "Every top-level key of the match is in the arguments with an equal value; other keys are ignored.",
  },
};

export const APPROVAL_WORDS: Record<Approval, Words> = {
  none: {
    label: "No approval",
    help: "Runs without asking: only read-only tools do; any other tool still stops for approval.",
  },
  per_call: {
    label: "Ask before each call",
    help: "The branch stops before each live call until an analyst approves it.",
  },
};

export const SIDE_EFFECT_WORDS: Record<SideEffect, Words> = {
  none: { label: "No side effects", help: "Computes an answer and changes nothing: safe to run live." },
  read: { label: "Reads only", help: "Reads data without changing it: safe to run live." },
  write: { label: "Writes", help: "Changes data this system owns: never run live without approval." },
  external_mutation: {
    label: "Changes the outside world",
    help: "Sends, pays, books or otherwise acts outside: never run live without approval.",
  },
  unknown: { label: "Not declared", help: "Treated as unsafe until someone declares what it does." },
};

/** The presets a new policy or a replay can start from: the tool levels, and the recommended default. */
export type Preset = ToolLevel | "recommended";

export const PRESET_WORDS: Record<Preset, Words> = {
  recommended: {
    label: "Recommended RCA default",
    help: "Recorded model outputs and recorded tool results; a call with no recorded result pauses for a fixture.",
  },
  "recorded-only": {
    label: "Recorded only",
    help: "Only captured tool results; a call with no recorded result stops the replay.",
  },
  "pause-for-fixture": {
    label: "Recorded, pause when missing",
    help: "Captured tool results; a call with no recorded result pauses for an analyst's fixture.",
  },
  "analyst-fixture": {
    label: "Analyst-supplied results",
    help: "Every tool result comes from a fixture an analyst supplies.",
  },
  simulated: {
    label: "Simulated tools",
    help: "A model simulates every tool's result.",
  },
  "live-readonly": {
    label: "Live read-only tools",
    help: "Read-only tools run live; the others replay their recorded results and pause when one is missing.",
  },
  "live-explicit": {
    label: "Live tools, each approved",
    help: "Every tool runs live, and the branch asks before each call.",
  },
  blocked: {
    label: "No tools",
    help: "Every tool call is refused and the agent gets a tool error.",
  },
};

/** The replay form's presets (the recommended default, and two built on it). */
export const REPLAY_PRESET_WORDS: Record<"recommended" | "recorded" | "fork-live", Words> = {
  recommended: PRESET_WORDS.recommended,
  recorded: {
    label: "Recorded only",
    help: "Recorded model outputs and recorded tool results; a call with no recorded result stops the replay.",
  },
  "fork-live": {
    label: "Fork-live",
    help: "Recorded model outputs until the model is sent something new, then the model runs live; a tool call with no recorded result pauses for a fixture.",
  },
};

/** Every dictionary, for the test that every value has words and the words cite nothing. */
export const ALL_WORDS = {
  model: MODEL_WORDS,
  drift: DRIFT_WORDS,
  ruleType: RULE_TYPE_WORDS,
  onMiss: ON_MISS_WORDS,
  scope: SCOPE_WORDS,
  matchMode: MATCH_MODE_WORDS,
  approval: APPROVAL_WORDS,
  sideEffect: SIDE_EFFECT_WORDS,
  preset: PRESET_WORDS,
  replayPreset: REPLAY_PRESET_WORDS,
} as const;
