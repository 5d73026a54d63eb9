// The one entry point to the replay engine. Everything outside lib/replay
// imports from here. The engine is pure: no I/O, no Next, React or Prisma.
export * from "./canonical";
export * from "./events";
export * from "./identity";
export * from "./policy";
export * from "./validate";
export * from "./edits";
export * from "./cohort-edit";
export * from "./log";
export type { MissExplanation, MissReason, ClosestCall, StaticCaseMismatch } from "./miss";
export { closestRecordedCalls } from "./miss";
export { staticCaseMatches } from "./resolve";
export { resultEntryFields } from "./resolve-live";
export {
  type ToolCall,
  type ToolAnswer,
  type ToolExecutor,
  LiveCallInDoubt,
  RunInterrupted,
  CancelledBeforeCall,
  type ToolSimulator,
} from "./tool-call";
export {
  pickHistoryMatch,
  type HistoryLookup,
  type HistoryMatch,
  type HistoryCandidate,
  type HistoryCohort,
} from "./history-match";
export type { ToolOutcome, StepSource } from "./resolve-types";
export * from "./replay";
export {
  createToolResolver,
  toolResolverFor,
  type ToolResolver,
  type ResolverCall,
  type ToolResolverOptions,
} from "./resolver";
export { indexBase, type BaseIndex } from "./base-index";
export { recordedStep } from "./replay-run";
export { stepsEvidence, strengthOf } from "./replay-evidence";
export * from "./compare";
export * from "./interchange";
export * from "./explain";
export { deepEqual, differingPaths, formatPath, isPlainObject, parseJsonText, sameJson, type JsonPath } from "./json";
export * from "./checks";
export * from "./trials";
export * from "./coverage";
export * from "./investigate";
export * from "./stale";
