/** What resolving one tool call yields, and what it draws on to get there. */
import type { BaseIndex } from "./base-index";
import type { EventError, SessionEvent, Usage } from "./events";
import type { HistoryCohort, HistoryLookup, HistoryMatch } from "./history-match";
import type { KeyStates } from "./key-states";
import type { ApprovalEntry, FixtureEntry, LogIndex } from "./log";
import type { MissExplanation } from "./miss";
import type { SideEffect } from "./policy";
import type { ToolExecutor, ToolSimulator } from "./tool-call";
import type { Adapter } from "./validate";

export type StepSource =
  "recorded" | "static" | "fixture" | "provider_fixture" | "live" | "llm" | "error_result" | "blocked" | "edit";

export type ToolOutcome =
  | {
      type: "answer";
      source: StepSource;
      output: unknown;
      error: EventError | null;
      miss: MissExplanation | null;
      /** The recording that answered (history), when from the base. */
      recorded?: SessionEvent;
      externalMatch?: HistoryMatch;
      fixture?: FixtureEntry;
      approval?: ApprovalEntry;
      /** A live or simulated result: whether it came from the log (a resume) or ran now. */
      live?: { fromLog: boolean; logEntryId: string; durationMs: number | null; usage?: Usage | null };
    }
  | { type: "stop"; code: StopCode; message: string; miss: MissExplanation | null }
  | { type: "pause"; miss: MissExplanation }
  | { type: "awaiting_approval"; miss: MissExplanation | null; message: string }
  | { type: "needs_live"; kind: "tool" | "simulator"; miss: MissExplanation | null };

export type StopCode =
  "tool_miss_fail" | "langgraph_null_result" | "tool_executor_missing" | "simulator_missing" | "budget_live_calls";

export interface ResolveEnv {
  base: BaseIndex;
  /** Occurrence state per cache key (mutated). */
  keys: KeyStates;
  log: LogIndex;
  adapter?: Adapter;
  sideEffectOf: (tool: string) => SideEffect;
  historyLookup?: HistoryLookup;
  /** Who belongs to the cohort, for `cohort_version` history. */
  cohort?: HistoryCohort | null;
  /** Present in a replay; absent when only explaining, which then reports `needs_live`. */
  run?: {
    toolExecutor?: ToolExecutor;
    simulator?: ToolSimulator;
    /** Whether one more live execution fits the budget. */
    liveAllowed: () => boolean;
    now: () => string | null;
  };
}

export type RuleResult =
  | Extract<ToolOutcome, { type: "answer" | "stop" | "needs_live" | "awaiting_approval" | "pause" }>
  | { type: "miss"; miss: MissExplanation };

export type MaybePromise<T> = T | Promise<T>;
