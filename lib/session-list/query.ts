/**
 * The session list's query: its filters and sorts, as the API's query string
 * and the page's URL both spell them. Pure (zod only): lib/db turns each
 * filter into SQL from its `on` and `op`, so a filter is one row of
 * SESSION_FILTERS and nothing else.
 */
import { z } from "zod";

/** The columns a filter may test (lib/db maps each to its SQL; `tokens` is input plus output tokens). */
export type FilterColumn =
  | "agent"
  | "status"
  | "outcome"
  | "toolNames"
  | "searchText"
  | "errorCount"
  | "costUsd"
  | "durationMs"
  | "tokens"
  | "startedAt"
  | "annotationLabel";

/**
 * How a filter tests its column: `eq` equal, `has` an array holding the value, `contains` a
 * substring (case-insensitive), `gte`/`lte` inclusive bounds, `lt` an exclusive one, `nonzero`
 * a yes/no "above zero". A bound on a column that can be empty (duration, start) leaves out
 * the sessions where it is empty.
 */
export type FilterOp = "eq" | "has" | "contains" | "gte" | "lte" | "lt" | "nonzero";

type Filter<S extends z.ZodType> = { schema: S; on: FilterColumn; op: FilterOp };
const filter = <S extends z.ZodType>(on: FilterColumn, op: FilterOp, schema: S): Filter<S> => ({ schema, on, op });

const text = (what: string) => z.string().min(1).max(200, `${what} is at most 200 characters.`);
/** A number written in the query string; `name` says which parameter a bad one was. */
const amount = (name: string, int: boolean) => {
  const n = z.coerce.number(`${name} must be a number.`).min(0, `${name} must be 0 or more.`);
  return int
    ? n.int(`${name} must be a whole number.`).max(2 ** 53, `${name} is too large.`)
    : n.max(1e12, `${name} is too large.`);
};
/** An instant: an ISO date-time with its zone, or a day (midnight UTC). */
const instant = (name: string) =>
  z
    .string()
    .regex(
      /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/,
      `${name} must be a date (2026-03-01) or a date-time with its zone (2026-03-01T09:30:00Z).`,
    )
    .transform((v, ctx) => {
      const d = new Date(v.length === 10 ? `${v}T00:00:00Z` : v);
      if (Number.isNaN(d.getTime())) {
        ctx.addIssue({ code: "custom", message: `${name} is not a real date.` });
        return z.NEVER;
      }
      return d;
    });

export const SESSION_STATUSES = ["completed", "failed", "incomplete"] as const;
export const SESSION_OUTCOMES = ["passed", "failed", "unknown"] as const;

/**
 * Every filter: its query parameter, the column it tests, how, and what it accepts. Bounds are
 * inclusive (`min…` and `max…`), except `to`, which is exclusive: `from=2026-03-01&to=2026-03-02`
 * is one day of runs by when they started.
 */
export const SESSION_FILTERS = {
  agent: filter("agent", "eq", text("agent")),
  // `status=failed` finds every run that failed: those whose recording ended on an error and those whose outcome
  // is failed (the source's own verdict, or a failed tool call never recovered from).
  status: filter("status", "eq", z.enum(SESSION_STATUSES, "status must be completed, failed or incomplete.")),
  // `outcome=unknown` includes runs whose outcome has not been worked out yet.
  outcome: filter("outcome", "eq", z.enum(SESSION_OUTCOMES, "outcome must be passed, failed or unknown.")),
  tool: filter("toolNames", "has", text("tool")),
  q: filter("searchText", "contains", text("q")),
  hasErrors: filter(
    "errorCount",
    "nonzero",
    z.enum(["true", "false"], "hasErrors must be true or false.").transform((v) => v === "true"),
  ),
  minErrors: filter("errorCount", "gte", amount("minErrors", true)),
  maxErrors: filter("errorCount", "lte", amount("maxErrors", true)),
  minCostUsd: filter("costUsd", "gte", amount("minCostUsd", false)),
  maxCostUsd: filter("costUsd", "lte", amount("maxCostUsd", false)),
  minDurationMs: filter("durationMs", "gte", amount("minDurationMs", true)),
  maxDurationMs: filter("durationMs", "lte", amount("maxDurationMs", true)),
  minTokens: filter("tokens", "gte", amount("minTokens", true)),
  maxTokens: filter("tokens", "lte", amount("maxTokens", true)),
  // Sessions a person labelled so, on the session or on one of its steps.
  label: filter("annotationLabel", "has", text("label")),
  from: filter("startedAt", "gte", instant("from")),
  to: filter("startedAt", "lt", instant("to")),
};
export type SessionFilterName = keyof typeof SESSION_FILTERS;
export const SESSION_FILTER_NAMES = Object.keys(SESSION_FILTERS) as SessionFilterName[];

/** The parsed value of each filter, absent when not given. */
export type SessionFilters = {
  [K in SessionFilterName]?: z.output<(typeof SESSION_FILTERS)[K]["schema"]>;
};

/**
 * The orders the list offers: `-` first for descending. Ties are broken by id in the same
 * direction; sessions with no value (no start time, no duration) come last either way.
 * `createdAt` (when it was imported) is the default, newest first.
 */
export const SESSION_SORT_KEYS = ["createdAt", "startedAt", "costUsd", "durationMs", "errorCount", "steps"] as const;
export type SessionSortKey = (typeof SESSION_SORT_KEYS)[number];
export const SESSION_SORTS = SESSION_SORT_KEYS.flatMap((k) => [k, `-${k}`] as const);
export type SessionSort = SessionSortKey | `-${SessionSortKey}`;
export const DEFAULT_SESSION_SORT: SessionSort = "-createdAt";

export const SessionSortParam = z.enum(
  SESSION_SORTS as [SessionSort, ...SessionSort[]],
  `sort must be one of ${SESSION_SORT_KEYS.join(", ")}, each with a leading - for descending.`,
);

export function parseSort(sort: SessionSort): { key: SessionSortKey; descending: boolean } {
  return sort.startsWith("-")
    ? { key: sort.slice(1) as SessionSortKey, descending: true }
    : { key: sort as SessionSortKey, descending: false };
}

/** An empty parameter (`?status=`) means the filter is off, as a form sends it. */
const optional = <S extends z.ZodType>(schema: S) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), schema.optional());

const filterShape = Object.fromEntries(
  SESSION_FILTER_NAMES.map((name) => [name, optional(SESSION_FILTERS[name].schema)]),
) as unknown as { [K in SessionFilterName]: z.ZodOptional<z.ZodType<Exclude<SessionFilters[K], undefined>, unknown>> };

/** Pairs whose lower bound must not pass the upper: the upper one is named when it does. */
const RANGES: [SessionFilterName, SessionFilterName][] = [
  ["minErrors", "maxErrors"],
  ["minCostUsd", "maxCostUsd"],
  ["minDurationMs", "maxDurationMs"],
  ["minTokens", "maxTokens"],
  ["from", "to"],
];

/** A filter range whose lower bound passes its upper is empty: say so on the upper one. */
function checkRanges(q: SessionFilters, ctx: z.RefinementCtx) {
  for (const [low, high] of RANGES) {
    const a = q[low] as number | Date | undefined;
    const b = q[high] as number | Date | undefined;
    if (a === undefined || b === undefined) continue;
    const empty = high === "to" ? +a >= +b : +a > +b;
    if (empty)
      ctx.addIssue({
        code: "custom",
        path: [high],
        message: `${high} must be ${high === "to" ? "after" : "at least"} ${low}.`,
      });
  }
}

/** The list's whole query: the filters, the order, and a page (the last id of the previous page as the cursor). */
export const SessionListQuery = z
  .object({
    limit: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z.coerce
        .number("limit must be a number.")
        .int("limit must be a whole number.")
        .min(1, "limit must be 1 or more.")
        .max(200, "limit is at most 200.")
        .default(50),
    ),
    cursor: optional(z.string().max(64, "cursor is at most 64 characters.")),
    sort: optional(SessionSortParam),
    ...filterShape,
  })
  .superRefine(checkRanges);
export type SessionListQuery = z.infer<typeof SessionListQuery>;

/** The list's filters alone (no order, no page), as a JSON body names them: a name the list does not know is refused. */
export const SessionFilterQuery = z.strictObject(filterShape).superRefine(checkRanges);
export type SessionFilterQuery = z.infer<typeof SessionFilterQuery>;

/** The most sessions one export holds. */
export const MAX_EXPORT_SESSIONS = 10_000;

/** An export's query: the list's filters and order (every matching session, not a page), and at most how many. */
export const SessionExportQuery = z
  .object({
    sort: optional(SessionSortParam),
    max: z.preprocess(
      (v) => (v === "" ? undefined : v),
      z.coerce
        .number("max must be a number.")
        .int("max must be a whole number.")
        .min(1, "max must be 1 or more.")
        .max(MAX_EXPORT_SESSIONS, `max is at most ${MAX_EXPORT_SESSIONS}.`)
        .default(MAX_EXPORT_SESSIONS),
    ),
    ...filterShape,
  })
  .superRefine(checkRanges);
export type SessionExportQuery = z.infer<typeof SessionExportQuery>;

/** Whether any filter is set (the page says "matches among" and offers to clear them). */
export function hasFilters(q: SessionFilters): boolean {
  return SESSION_FILTER_NAMES.some((name) => q[name] !== undefined);
}

/**
 * A page URL's query, forgiving: a parameter that does not parse is left out (and said so), the
 * rest applies. Returns the parsed query, the raw values kept (for the form) and what was left out.
 */
export function parseListUrl(raw: Record<string, string | undefined>): {
  query: SessionListQuery;
  kept: Record<string, string>;
  ignored: { path: string; message: string }[];
} {
  const known = new Set<string>(["limit", "cursor", "sort", ...SESSION_FILTER_NAMES]);
  const kept = Object.fromEntries(
    Object.entries(raw).filter(
      (e): e is [string, string] => known.has(e[0]) && typeof e[1] === "string" && e[1] !== "",
    ),
  );
  const ignored: { path: string; message: string }[] = [];
  // Each round drops what failed; a range's check runs once both ends parse, so two rounds may be needed.
  for (let round = 0; round < 3; round++) {
    const parsed = SessionListQuery.safeParse(kept);
    if (parsed.success) return { query: parsed.data, kept, ignored };
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? "");
      if (key in kept) {
        delete kept[key];
        ignored.push({ path: key, message: issue.message });
      }
    }
  }
  return { query: SessionListQuery.parse({}), kept: {}, ignored };
}
