import { z } from "zod";
import type { SessionEvent } from "@/lib/replay";

export const Adapter = z.enum(["pydantic-ai", "langgraph", "openai-agents", "mastra", "vercel-ai-sdk", "generic"]);
export type Adapter = z.infer<typeof Adapter>;

export const SideEffect = z.enum(["none", "read", "write", "external_mutation", "unknown"]);
export type SideEffect = z.infer<typeof SideEffect>;

export const Capability = z.enum(["overrides", "tool_policies"]);
export type Capability = z.infer<typeof Capability>;

/** The formats Branchpoint imports. */
export const ImportFormat = z.enum([
  "native",
  "openai-chat",
  "otlp-json",
  "otlp-protobuf",
  "openai-agents",
  "langfuse",
  "langsmith",
  "phoenix",
  "braintrust",
]);
export type ImportFormat = z.infer<typeof ImportFormat>;

/**
 * What every importer produces: a session ready to be written in one
 * transaction. Events carry their seq and derived cacheKey/occurrence
 * (see `assignCallIdentity` in lib/replay).
 */
export type ImportedSession = {
  /** A stable id from the source (trace id, task/trial), used to make re-imports idempotent where the source allows. */
  externalId: string | null;
  title: string | null;
  agent: { name: string; adapter: Adapter };
  agentVersion: { version: string; capabilities: Capability[] };
  format: ImportFormat;
  startedAt: string | null;
  endedAt: string | null;
  /** Anything from the source worth keeping that has no column (reward, task id…). */
  metadata: Record<string, unknown>;
  tools: { name: string; schema?: unknown; sideEffect?: SideEffect }[];
  events: SessionEvent[];
};

/** One problem with an input document, at an exact path (`[0].traj[3].tool_calls[0].function.arguments`). */
export type ImportIssue = { path: string; message: string };

export type ImportResult =
  | { ok: true; format: ImportFormat; sessions: ImportedSession[] }
  | {
      ok: false;
      format: ImportFormat | null;
      issues: ImportIssue[];
      /**
       * Why a document of no detected format could not be read, in one sentence a user reads
       * (malformed JSON and where, or not a valid OTLP protobuf export): absent when the document
       * was read and is simply in no supported format.
       */
      summary?: string;
    };
