/**
 * Why a replay, an experiment member or an investigation failed: the closed
 * list of codes the run machinery writes in a row's `error.code`, and the one
 * map of words pages show for them. Rows stored before the list was closed may
 * hold other strings (and an investigation stopped by a refusal keeps that
 * refusal's code), so reading never trusts the code: an unknown one gets the
 * generic words. The engine's own stop codes (a tool with no recording, a spent
 * budget) are its verdicts, not failures of the run, and stay the engine's.
 */
import { z } from "zod";

export const RUN_FAILURE_CODES = [
  "replay_failed",
  "save_failed",
  "job_error",
  "gave_up",
  "cancelled",
  "investigation_failed",
  // The engine refused its input before running anything (lib/replay's ReplayInputError).
  "invalid_policy",
  "invalid_edits",
  "model_executor_missing",
  "history_lookup_missing",
  "provider_fixtures_missing",
  // A branch your own agent drove: it reported an error at its end, or went silent past the policy's idle timeout.
  "agent_error",
  "agent_abandoned",
] as const;

export type RunFailureCode = (typeof RUN_FAILURE_CODES)[number];
export const RunFailureCode = z.enum(RUN_FAILURE_CODES);

/** A failure as it is stored on the row. */
export interface RunFailure {
  code: RunFailureCode;
  message: string;
}

/** The stored form of a failure: the only way a run failure's code is written. */
export function runFailure(code: RunFailureCode, message: string): RunFailure {
  return { code, message };
}

export const RUN_FAILURE_WORDS: Record<RunFailureCode, string> = {
  replay_failed: "The run stopped on an unexpected error before it had a result.",
  save_failed: "The run finished, but its result could not be saved.",
  job_error: "The worker running it met an error; it is tried again.",
  gave_up: "Given up: every attempt ended without a result.",
  cancelled: "Stopped on request.",
  investigation_failed: "The investigation stopped on an unexpected error.",
  invalid_policy: "The policy is not valid.",
  invalid_edits: "The edits do not fit the session.",
  model_executor_missing: "The policy runs a live model, and no model endpoint is set up.",
  history_lookup_missing: "The policy answers tools from other sessions' history, and it had no way to look them up.",
  provider_fixtures_missing: "The policy replays the model from provider fixtures, and none were given.",
  agent_error: "The agent driving the branch ended with an error.",
  agent_abandoned: "The agent driving the branch went silent past its idle timeout.",
};

/** What pages say for a code they do not know (an older row's, or a refusal's). */
export const UNKNOWN_RUN_FAILURE_WORDS = "The run ended early.";

/** The words for a stored code, whatever it holds. */
export function runFailureWords(code: unknown): string {
  const known = RunFailureCode.safeParse(code);
  return known.success ? RUN_FAILURE_WORDS[known.data] : UNKNOWN_RUN_FAILURE_WORDS;
}
