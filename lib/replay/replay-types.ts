/**
 * The engine's input and output types, apart from the engine itself so the
 * engine's own files can name them without importing each other in a circle.
 * Everyone else imports them from the engine's index.
 */
import type { Edit, EditOp } from "./edits";
import type { EventError, Message, SessionEvent, Usage } from "./events";
import type { ApprovalEntry, BranchLogEntry } from "./log";
import type { MissExplanation } from "./miss";
import type { KnownTool, Policy } from "./policy";
import type { HistoryCohort, HistoryLookup } from "./history-match";
import type { StepSource } from "./resolve-types";
import type { ToolExecutor, ToolSimulator } from "./tool-call";
import type { Adapter } from "./validate";

// ---------------------------------------------------------------------------
// Inputs

export interface ModelRequest {
  /** 0-based index among the branch's model steps. */
  modelStep: number;
  /** Branch step index this model step occupies. */
  step: number;
  messages: Message[];
  model: string | undefined;
  temperature: number | undefined;
  tools: unknown[] | undefined;
  /** The recorded model call at this model step, when the base has one. */
  recorded: SessionEvent | null;
}

export type ModelExecutor = (
  request: ModelRequest,
) => Promise<{ output: Message; model?: string; usage?: Usage; durationMs?: number }>;

/** Provider-supplied outputs for `provider-fixture`, by model-step index. */
export interface ProviderFixture {
  modelStep: number;
  output: Message;
  model?: string;
}

export interface ReplayInput {
  /**
   * The base run. A model call's input may come whole or in the stored form
   * (`inputPrefix` + the messages it adds, as lib/db stores it): the engine
   * works on message lists that share their prefixes either way.
   */
  base: readonly SessionEvent[];
  /**
   * The form of the returned steps' model inputs: "full" (default) gives each
   * its whole message list; "compact" gives the stored form (`inputPrefix`
   * naming the previous model step + the messages added), so a long
   * conversation costs O(steps), not the square of its length.
   */
  inputs?: "full" | "compact";
  policy: Policy;
  edits?: readonly Edit[];
  /** The branch's own append-only log: fixtures, live results, approvals. Read first. */
  log?: readonly BranchLogEntry[];
  executors?: { model?: ModelExecutor; tool?: ToolExecutor; simulator?: ToolSimulator };
  /** Candidates for `cohort_version` and `agent` scopes (see `HistoryLookup`); the engine picks among them. */
  historyLookup?: HistoryLookup;
  /** The experiment's cohort, for `cohort_version` history. */
  cohort?: HistoryCohort | null;
  /** Side-effect class per tool; anything not listed is `unknown` (not read-only). */
  tools?: readonly KnownTool[];
  adapter?: Adapter;
  providerFixtures?: readonly ProviderFixture[];
  /** Clock for new log entries; without one their `at` is null (the engine does no I/O). */
  now?: () => string;
  /**
   * Called at step boundaries (before each model step, and once at the end):
   * `done` = base events the branch has covered so far, `total` = base event count.
   */
  onProgress?: (p: { done: number; total: number }) => void;
  /**
   * Checked at step boundaries (before each model step and each tool call).
   * When it answers true the replay ends with status `cancelled`: the steps so
   * far are kept and the branch is `non_comparable`.
   */
  isCancelled?: () => boolean | Promise<boolean>;
}

// ---------------------------------------------------------------------------
// Outputs

export type ReplayStatus =
  | "completed"
  | "paused"
  | "awaiting_approval"
  | "failed"
  | "stopped_on_divergence"
  | "budget_exhausted"
  | "blocked"
  | "cancelled";

export type Comparability = "exact" | "aligned" | "diverged_but_comparable" | "non_comparable";
export type EvidenceStrength = "recorded" | "controlled" | "simulated" | "live" | "drifting";

/** One branch step: a SessionEvent plus where it came from. `seq` is the branch step index. */
export interface ReplayStep extends SessionEvent {
  source: StepSource;
  /** The base event this step aligns with, when any. */
  baseSeq: number | null;
  miss: MissExplanation | null;
  /** Same name, input, output, error and status as the aligned base event. */
  equalsBase: boolean;
  edits: EditOp[];
  fixtureId?: string;
  logEntryId?: string;
  approvalId?: string;
  inputDrift?: string[];
  /** Notes the caller attached (e.g. an executor answer that had NUL characters replaced). */
  notes?: string[];
}

export interface PendingCall {
  waitingFor: "fixture" | "approval";
  tool: string;
  callId: string;
  args: unknown;
  cacheKey: string | null;
  step: number;
  baseSeq: number | null;
  miss: MissExplanation | null;
  /** The closest recorded result, to prefill a fixture form. */
  prefill: { seq: number; output: unknown; error: EventError | null } | null;
  message: string;
}

export interface ReplayStop {
  code: string;
  message: string;
  step: number;
  call?: { tool: string; callId: string; args: unknown; cacheKey: string | null; baseSeq: number | null };
  miss: MissExplanation | null;
}

export interface LiveCallRecord {
  step: number;
  kind: "tool" | "simulator" | "model" | "probe";
  name: string;
  callId: string | null;
  fromLog: boolean;
  logEntryId: string;
  approval: Pick<ApprovalEntry, "id" | "by" | "at" | "decision" | "note"> | null;
}

export interface ProbeReport {
  modelStep: number;
  step: number;
  runs: number;
  distinctOutputs: number;
  matchesRecorded: number;
  /** 1 − (most common output's share): 0 when every run agreed. */
  variance: number;
}

export interface Evidence {
  policy: Policy;
  policyHash: string;
  stepsBySource: Record<StepSource, number>;
  strength: EvidenceStrength;
  fixturesUsed: { step: number; tool: string; fixtureId: string; author: string; note: string; at: string | null }[];
  liveCalls: LiveCallRecord[];
  inputDrift: { step: number; modelStep: number; baseSeq: number | null; reasons: string[] }[];
  probes: ProbeReport[];
  edits: readonly Edit[];
  /** Fork-live: the first model step that ran live (absent in evidence stored before fork-live existed). */
  fork?: ForkPoint | null;
}

/** Where a fork-live branch started running the model live. */
export interface ForkPoint {
  /** Branch step of the first live model step. */
  seq: number;
  modelStep: number;
  /** The base model call it stands in for, when the base has one. */
  baseSeq: number | null;
  /** Why its input differed from the recorded one (the input-drift reasons). */
  reasons: string[];
}

export interface ReplayResult {
  status: ReplayStatus;
  /** Fork-live (`recorded-until-divergence`): the first model step that ran live; null when none did. */
  fork: ForkPoint | null;
  stop: ReplayStop | null;
  steps: ReplayStep[];
  pending: PendingCall | null;
  comparability: Comparability;
  evidence: Evidence;
  /** Entries this run added to the branch log (live and simulated results): persist them. */
  newLogEntries: BranchLogEntry[];
}
