/**
 * Connectors: platforms an admin points Branchpoint at (Langfuse, LangSmith, Phoenix, Braintrust: ./platforms.ts), whose recorded traces analysts pull in as
 * sessions. A connector's base URL must be on the executor allow-list and its secret key stays in the server's
 * environment (the connector names the variable). A pull is a job (./run-pull.ts): stored, put on the queue,
 * polled for its progress, cancellable.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { auditedChange } from "@/lib/db/audit";
import {
  findConnector,
  findPull,
  insertConnector,
  insertPull,
  listConnectorRows,
  listPulls,
  requestPullCancel,
  stopPullSchedule,
  type ConnectorRow,
  type PullRow,
} from "@/lib/db/connectors";
import { allowedHosts } from "@/lib/db/executors";
import { AppError, invalidInput, notFound } from "@/lib/errors";
import type { Resolver } from "@/lib/executors/outbound";
import { parseHttpUrl, urlHostAllowed } from "@/lib/executors/live";
import { authorize } from "../authz";
import { keyEnvNameProblem } from "@/lib/executors/key-env";
import { jobQueueFor, type QueueDeps } from "../job-queue";
import type { Principal } from "../principal";
import { CONNECTOR_KINDS, platformOf } from "./platforms";
import { runPull, type PullDeps } from "./run-pull";
import { checkConnectorHost, checkNameFree } from "./connector-checks";
import { isObject } from "@/lib/ingest/otlp/attributes";

const CONNECTOR_KEY = { what: "a connector", whose: "the platform's secret", users: "connectors" };

/** The fields every connector has, as an admin gives them (an edit gives any of them). */
export const CONNECTOR_FIELDS = {
  name: z.string().trim().min(1, "Give the connector a name.").max(100),
  baseUrl: z
    .string()
    .trim()
    .max(2000)
    .refine((v) => parseHttpUrl(v) !== null, "The base URL must be an http:// or https:// URL."),
  secretKeyEnv: z
    .string()
    .trim()
    .superRefine((name, ctx) => {
      const problem =
        name === ""
          ? "Name the environment variable that holds the secret key."
          : keyEnvNameProblem(name, CONNECTOR_KEY);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
};

const KIND_ERROR = `kind must be one of ${CONNECTOR_KINDS.map((k) => JSON.stringify(k)).join(", ")}.`;

/** A connector as an admin gives it: its kind decides what else it needs (a connector without one is Langfuse). */
export const ConnectorInput = z.preprocess(
  (v) => (isObject(v) && v.kind === undefined ? { ...v, kind: "langfuse" } : v),
  z.discriminatedUnion(
    "kind",
    [
      z
        .object({
          kind: z.literal("langfuse"),
          ...CONNECTOR_FIELDS,
          publicKey: z.string().trim().min(1, "Give the project's public key (pk-lf-…).").max(200),
        })
        .strict(),
      z
        .object({
          kind: z.literal("langsmith"),
          ...CONNECTOR_FIELDS,
          project: z
            .string()
            .trim()
            .min(1, "Give the id of the LangSmith project to pull from (its tracing project's UUID).")
            .max(200),
        })
        .strict(),
      z
        .object({
          kind: z.literal("phoenix"),
          ...CONNECTOR_FIELDS,
          project: z.string().trim().min(1, "Give the name or id of the Phoenix project to pull from.").max(200),
        })
        .strict(),
      z
        .object({
          kind: z.literal("braintrust"),
          ...CONNECTOR_FIELDS,
          project: z
            .string()
            .trim()
            .min(1, "Give the id of the Braintrust project to pull from (its project logs' UUID).")
            .max(200),
        })
        .strict(),
    ],
    { error: (issue) => (issue.code === "invalid_union" ? KIND_ERROR : undefined) },
  ),
);
export type ConnectorInput = z.infer<typeof ConnectorInput>;

const Timestamp = z.iso.datetime({
  offset: true,
  error: "must be an ISO 8601 date-time, such as 2026-11-20T00:00:00Z",
});
const Text = z.string().min(1).max(500);

export const PullFilterInput = z
  .object({
    fromTimestamp: Timestamp.optional(),
    toTimestamp: Timestamp.optional(),
    tags: z.array(z.string().min(1).max(200)).max(20).optional(),
    userId: Text.optional(),
    sessionId: Text.optional(),
    name: Text.optional(),
    error: z.boolean().optional(),
    query: z.string().min(1).max(2000).optional(),
    environment: Text.optional(),
    version: Text.optional(),
    release: Text.optional(),
    experiment: Text.optional(),
    score: z
      .object({
        name: z.string().trim().min(1, "Name the score.").max(200),
        op: z.enum(["=", "!=", ">", ">=", "<", "<="], { error: "op must be one of =, !=, >, >=, <, <=." }),
        value: z.union([z.number().finite(), z.string().max(200), z.boolean()]),
      })
      .strict()
      .refine(
        (s) => typeof s.value === "number" || s.op === "=" || s.op === "!=",
        "A text or true/false score compares by = or != only.",
      )
      .optional(),
    traceIds: z
      .array(z.string().min(1, "A trace id cannot be empty.").max(200, "A trace id has at most 200 characters."))
      .min(1, "Give at least one trace id.")
      .max(500, "A pull takes at most 500 trace ids.")
      .optional(),
  })
  .strict();
export type PullFilterInput = z.infer<typeof PullFilterInput>;

/** A pull that repeats: every `everyMinutes` (5 minutes to a week) the next reads the traces since the last. */
export const PullSchedule = z
  .object({
    everyMinutes: z
      .number()
      .int("everyMinutes must be a whole number of minutes.")
      .min(5, "A schedule repeats at most every 5 minutes.")
      .max(10080, "A schedule repeats at least once a week (10080 minutes)."),
  })
  .strict();
export type PullSchedule = z.infer<typeof PullSchedule>;

export const StartPullInput = z
  .object({ filter: PullFilterInput.default({}), schedule: PullSchedule.optional() })
  .strict();
export type StartPullInput = z.infer<typeof StartPullInput>;

export function connectorView(row: ConnectorRow, allowed: ReadonlySet<string>) {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    baseUrl: row.baseUrl,
    publicKey: row.publicKey,
    project: row.project,
    secretKeyEnv: row.secretKeyEnv,
    /** Whether the variable is set in this server's environment (never its value). */
    secretSet: Boolean(process.env[row.secretKeyEnv]),
    hostAllowed: urlHostAllowed(row.baseUrl, allowed),
    createdAt: row.createdAt.toISOString(),
  };
}
export type ConnectorView = ReturnType<typeof connectorView>;

/** A pull as the API and the page show it. */
export function pullView(row: PullRow) {
  return {
    id: row.id,
    connectorId: row.connectorId,
    status: row.status,
    filter: row.filter,
    progress: row.progress,
    cursor: row.cursor ?? null,
    refusals: row.refusals,
    error: (row.error ?? null) as { code: string; message: string } | null,
    cancelRequested: row.cancelRequested,
    attempts: row.attempts,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    /** A scheduled pull's period, and when its next pull is due while this one holds the schedule. */
    schedule:
      row.everyMinutes !== null
        ? { everyMinutes: row.everyMinutes, nextRunAt: row.nextRunAt?.toISOString() ?? null }
        : null,
  };
}
export type PullView = ReturnType<typeof pullView>;

/** Every connector, with whether its host is allowed and its secret set. */
export async function listConnectors(principal: Principal, _input: unknown, prisma: Db) {
  authorize(principal, "executors.read");
  const [rows, allowed] = await Promise.all([listConnectorRows(prisma), allowedHosts(prisma)]);
  return rows.map((row) => connectorView(row, allowed));
}

/**
 * Adds a connector (admin, audited). Refused with a 400 naming why, writing nothing, when its base URL's host is
 * not an allowed destination or its key variable may not be sent out; a 409 when the name is taken.
 */
export async function createConnector(
  principal: Principal,
  input: unknown,
  prisma: Db,
  deps: { resolve?: Resolver } = {},
) {
  authorize(principal, "executors.manage");
  const parsed = ConnectorInput.safeParse(input);
  if (!parsed.success) throw invalidInput("The connector is not valid.", parsed.error);
  const data = parsed.data;
  const allowed = await allowedHosts(prisma);
  await checkConnectorHost(`The connector "${data.name}" cannot be added`, data.baseUrl, allowed, deps.resolve);
  await checkNameFree(prisma, data.name);
  const row = await auditedChange(
    prisma,
    (tx) =>
      insertConnector(tx, {
        name: data.name,
        kind: data.kind,
        baseUrl: data.baseUrl,
        publicKey: data.kind === "langfuse" ? data.publicKey : null,
        project: data.kind === "langfuse" ? null : data.project,
        secretKeyEnv: data.secretKeyEnv,
        createdBy: principal.name,
      }),
    (created) => ({
      actorId: principal.userId,
      actorName: principal.name,
      action: "connector.changed",
      target: created.name,
      detail: { change: "saved", kind: created.kind, baseUrl: created.baseUrl },
    }),
  );
  return connectorView(row, allowed);
}

async function connectorOf(prisma: Db, id: string): Promise<ConnectorRow> {
  const row = await findConnector(prisma, { id });
  if (!row) throw notFound("connector", id);
  return row;
}

/**
 * Stores a pull of a connector's traces and puts it on the job queue (with none plugged in, runs it in this
 * call). The filter's `toTimestamp` is fixed now when not given, so the pages a pull reads do not shift as new
 * traces arrive.
 */
export async function startPull(
  principal: Principal,
  input: { connectorId: string } & StartPullInput,
  prisma: Db,
  deps: QueueDeps & PullDeps = {},
) {
  authorize(principal, "sessions.import");
  const connector = await connectorOf(prisma, input.connectorId);
  const platform = platformOf(connector.kind);
  const unread = Object.keys(input.filter).filter(
    (key) => platform && !platform.filters.includes(key as keyof PullFilterInput),
  );
  if (platform && unread.length > 0)
    throw new AppError(
      "invalid_input",
      `A ${platform.label} pull cannot filter by ${unread.join(", ")}; it filters by ${platform.filters.join(", ")}.`,
      unread.map((key) => ({ path: `filter.${key}`, message: `not a filter ${platform.label} reads` })),
    );
  const issues = platform?.filterIssues?.(input.filter) ?? [];
  if (issues.length > 0)
    throw new AppError(
      "invalid_input",
      `The filter is not one ${platform!.label} can read: ${issues[0]!.message}.`,
      issues,
    );
  if (input.filter.traceIds) {
    const others = Object.keys(input.filter).filter((key) => !["traceIds", "error", "experiment"].includes(key));
    if (others.length > 0)
      throw new AppError(
        "invalid_input",
        `A pull of given trace ids reads no list, so it takes no other filter than error (got ${others.join(", ")}).`,
        others.map((key) => ({ path: `filter.${key}`, message: "not read with traceIds" })),
      );
    if (input.schedule)
      throw new AppError("invalid_input", "A pull of given trace ids cannot repeat on a schedule.", [
        { path: "schedule", message: "not with traceIds" },
      ]);
  }
  const filter = input.filter.traceIds
    ? { ...input.filter, traceIds: [...new Set(input.filter.traceIds)] }
    : { ...input.filter, toTimestamp: input.filter.toTimestamp ?? new Date().toISOString() };
  if (filter.fromTimestamp && filter.toTimestamp && Date.parse(filter.fromTimestamp) >= Date.parse(filter.toTimestamp))
    throw new AppError("invalid_input", "The filter's fromTimestamp must be before its toTimestamp.", [
      { path: "filter.fromTimestamp", message: "not before toTimestamp" },
    ]);
  const pull = await insertPull(prisma, {
    connectorId: connector.id,
    filter,
    createdBy: principal.name,
    ...(input.schedule ? { everyMinutes: input.schedule.everyMinutes } : {}),
  });
  const queue = jobQueueFor(deps);
  if (queue?.enqueuePulls) await queue.enqueuePulls([pull.id]);
  else await runPull(prisma, pull.id, { owner: `inline:${pull.id}`, leaseMs: 60_000, maxAttempts: 3 }, deps);
  return pullView((await findPull(prisma, pull.id)) ?? pull);
}

/** One pull of a connector, with its progress. */
export async function getPull(principal: Principal, input: { connectorId: string; pullId: string }, prisma: Db) {
  authorize(principal, "sessions.read");
  const row = await findPull(prisma, input.pullId);
  if (!row || row.connectorId !== input.connectorId) throw notFound("pull", input.pullId);
  return pullView(row);
}

/** A connector's latest pulls, newest first. */
export async function listConnectorPulls(principal: Principal, input: { connectorId: string }, prisma: Db) {
  authorize(principal, "sessions.read");
  await connectorOf(prisma, input.connectorId);
  return (await listPulls(prisma, input.connectorId)).map(pullView);
}

/**
 * Stops a pull after the trace it is on (a queued one at once); the sessions imported so far stay. A cancelled
 * pull starts no next one; cancelling a scheduled pull that has ended stops its schedule.
 */
export async function cancelPull(principal: Principal, input: { connectorId: string; pullId: string }, prisma: Db) {
  authorize(principal, "sessions.import");
  const row = await findPull(prisma, input.pullId);
  if (!row || row.connectorId !== input.connectorId) throw notFound("pull", input.pullId);
  if (row.status !== "queued" && row.status !== "running" && (await stopPullSchedule(prisma, row.id)))
    return pullView((await findPull(prisma, row.id))!);
  if (row.status !== "queued" && row.status !== "running")
    throw new AppError("wrong_state", `The pull has already ended (${row.status}); there is nothing to cancel.`);
  await requestPullCancel(prisma, row.id);
  // Its schedule ends with it, whatever the run still ends as (a cancel that lands after its last trace is read).
  await stopPullSchedule(prisma, row.id);
  return pullView((await findPull(prisma, row.id))!);
}
