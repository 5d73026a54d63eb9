/**
 * The session list: filters and sorts as SQL, paginated by keyset. The cursor
 * is the last id of the previous page (as it always was); the page after it
 * starts after that session's place in the order, read from the session
 * itself, so it stays correct under every sort. Each page is a range of one
 * index, (sort column, id): its cost is the page, not the table.
 */
import { AppError } from "@/lib/errors";
import {
  DEFAULT_SESSION_SORT,
  SESSION_FILTER_NAMES,
  SESSION_FILTERS,
  parseSort,
  type FilterColumn,
  type FilterOp,
  type SessionFilters,
  type SessionSort,
  type SessionSortKey,
} from "@/lib/session-list/query";
import type { DbClient } from "./client";
import { Prisma } from "./generated/client";
import { sessionListSelect, type SessionListItem } from "./session-reads";

/** Each filterable column as SQL over `s`, the session row, with the type its values are compared as. */
const COLUMN: Record<FilterColumn, { sql: Prisma.Sql; type: string }> = {
  agent: { sql: Prisma.sql`s."agentId"`, type: "text" },
  status: { sql: Prisma.sql`s."status"`, type: "text" },
  outcome: { sql: Prisma.sql`s."outcome"`, type: "text" },
  toolNames: { sql: Prisma.sql`s."toolNames"`, type: "text" },
  searchText: { sql: Prisma.sql`s."searchText"`, type: "text" },
  errorCount: { sql: Prisma.sql`s."errorCount"`, type: "bigint" },
  costUsd: { sql: Prisma.sql`s."costUsd"`, type: "float8" },
  durationMs: { sql: Prisma.sql`s."durationMs"`, type: "bigint" },
  tokens: { sql: Prisma.sql`(s."inputTokens"::bigint + s."outputTokens")`, type: "bigint" },
  startedAt: { sql: Prisma.sql`s."startedAt"`, type: "timestamptz" },
  annotationLabel: { sql: Prisma.sql`s."id"`, type: "text" },
};

/** A value as a parameter of the column's type: compared as that type, so the column's index serves. */
const param = (value: unknown, type: string) => Prisma.sql`${value}::${Prisma.raw(type)}`;

function condition(column: FilterColumn, op: FilterOp, value: unknown): Prisma.Sql {
  const { sql: c, type } = COLUMN[column];
  // An agent is named: its sessions are found by the agent's id (the name is unique), not by a join per row.
  if (column === "agent") return Prisma.sql`${c} IN (SELECT a."id" FROM "Agent" a WHERE a."name" = ${String(value)})`;
  // Failed runs are those whose recording ended on an error and those whose outcome is failed (query.ts).
  if (column === "status" && value === "failed") return Prisma.sql`(${c} = 'failed' OR s."outcome" = 'failed')`;
  // A label is on the session's annotations: the sessions holding one, from the (label, session) index.
  if (column === "annotationLabel")
    return Prisma.sql`${c} IN (SELECT n."sessionId" FROM "Annotation" n WHERE n."label" = ${String(value)})`;
  if (column === "outcome" && value === "unknown") return Prisma.sql`(${c} = 'unknown' OR ${c} IS NULL)`;
  switch (op) {
    case "eq":
      return Prisma.sql`${c} = ${param(value, type)}`;
    case "has":
      return Prisma.sql`${param(value, type)} = ANY(${c})`;
    case "contains":
      // strpos, not LIKE: a "%" or "_" typed in the search box means itself.
      return Prisma.sql`strpos(${c}, ${String(value).toLowerCase()}) > 0`;
    case "gte":
      return Prisma.sql`${c} >= ${param(value, type)}`;
    case "lte":
      return Prisma.sql`${c} <= ${param(value, type)}`;
    case "lt":
      return Prisma.sql`${c} < ${param(value, type)}`;
    case "nonzero":
      return value ? Prisma.sql`${c} > 0` : Prisma.sql`${c} = 0`;
  }
}

/** The WHERE conditions of the filters that are set. */
export function filterConditions(filters: SessionFilters): Prisma.Sql[] {
  return SESSION_FILTER_NAMES.flatMap((name) => {
    const value = filters[name];
    if (value === undefined) return [];
    const { on, op } = SESSION_FILTERS[name];
    return [condition(on, op, value)];
  });
}

/** Each sort's column; a nullable one's empty values come last in both directions. */
const SORT_COLUMN: Record<
  SessionSortKey,
  { sql: Prisma.Sql; type: string; field: keyof SortValues; nullable: boolean }
> = {
  createdAt: { sql: Prisma.sql`s."createdAt"`, type: "timestamptz", field: "createdAt", nullable: false },
  startedAt: { sql: Prisma.sql`s."startedAt"`, type: "timestamptz", field: "startedAt", nullable: true },
  costUsd: { sql: Prisma.sql`s."costUsd"`, type: "float8", field: "costUsd", nullable: false },
  durationMs: { sql: Prisma.sql`s."durationMs"`, type: "int", field: "durationMs", nullable: true },
  errorCount: { sql: Prisma.sql`s."errorCount"`, type: "int", field: "errorCount", nullable: false },
  steps: { sql: Prisma.sql`s."eventCount"`, type: "int", field: "eventCount", nullable: false },
};
type SortValues = {
  createdAt: Date;
  startedAt: Date | null;
  costUsd: number;
  durationMs: number | null;
  errorCount: number;
  eventCount: number;
};

const and = (parts: Prisma.Sql[]) => (parts.length ? Prisma.join(parts, " AND ") : Prisma.sql`TRUE`);

/**
 * Ids of one page in order. A nullable column is read in two ranges: the sessions with a value
 * in the column's order, then those without, by id; each range is a scan of the (column, id)
 * index in one direction (PostgreSQL's row comparison `(c, id) > (v, id)` never holds for an
 * empty c, so an index range could not hold both).
 */
async function pageIds(
  client: DbClient,
  where: Prisma.Sql[],
  sort: SessionSort,
  after: { value: Date | number | null; id: string } | null,
  take: number,
): Promise<string[]> {
  const { key, descending } = parseSort(sort);
  const { sql: c, type, nullable } = SORT_COLUMN[key];
  const dir = descending ? Prisma.sql`DESC` : Prisma.sql`ASC`;
  const cmp = descending ? Prisma.sql`<` : Prisma.sql`>`;
  const read = async (conds: Prisma.Sql[], order: Prisma.Sql, limit: number) =>
    (
      await client.$queryRaw<{ id: string }[]>(
        Prisma.sql`SELECT s."id" FROM "Session" s WHERE ${and([...where, ...conds])} ORDER BY ${order} LIMIT ${limit}`,
      )
    ).map((r) => r.id);

  const ids: string[] = [];
  if (!after || after.value !== null) {
    const keyset = after ? [Prisma.sql`(${c}, s."id") ${cmp} (${param(after.value, type)}, ${after.id})`] : [];
    const present = nullable ? [Prisma.sql`${c} IS NOT NULL`] : [];
    ids.push(...(await read([...present, ...keyset], Prisma.sql`${c} ${dir}, s."id" ${dir}`, take)));
  }
  if (nullable && ids.length < take) {
    const keyset = after && after.value === null ? [Prisma.sql`s."id" ${cmp} ${after.id}`] : [];
    ids.push(...(await read([Prisma.sql`${c} IS NULL`, ...keyset], Prisma.sql`s."id" ${dir}`, take - ids.length)));
  }
  return ids;
}

export type SessionListOptions = SessionFilters & { sort?: SessionSort; limit?: number; cursor?: string };

/**
 * One page of sessions, filtered and in the order asked (newest imported first by default), and the
 * cursor of the next (null on the last page). A cursor that names no session is bad input.
 */
export async function listSessions(
  client: DbClient,
  opts: SessionListOptions,
): Promise<{ sessions: SessionListItem[]; nextCursor: string | null }> {
  const limit = Math.min(Math.max(opts.limit ?? 50, 1), 200);
  const sort = opts.sort ?? DEFAULT_SESSION_SORT;
  let after: { value: Date | number | null; id: string } | null = null;
  if (opts.cursor) {
    const row = await client.session.findUnique({
      where: { id: opts.cursor },
      select: { createdAt: true, startedAt: true, costUsd: true, durationMs: true, errorCount: true, eventCount: true },
    });
    if (!row)
      throw new AppError("invalid_input", "The cursor names no session: start again from the first page.", [
        { path: "cursor", message: "No session has this id (it may have been deleted)." },
      ]);
    after = { value: row[SORT_COLUMN[parseSort(sort).key].field], id: opts.cursor };
  }
  const ids = await pageIds(client, filterConditions(opts), sort, after, limit + 1);
  const hasMore = ids.length > limit;
  const pageOf = hasMore ? ids.slice(0, limit) : ids;
  const rows = await client.session.findMany({ where: { id: { in: pageOf } }, select: sessionListSelect });
  const byId = new Map(rows.map((r) => [r.id, r]));
  // A session deleted between the two reads is left out.
  const sessions = pageOf.flatMap((id) => byId.get(id) ?? []);
  return { sessions, nextCursor: hasMore ? (pageOf.at(-1) ?? null) : null };
}

/** How many sessions the filters match (all of them with none). */
export async function countSessions(client: DbClient, filters: SessionFilters = {}): Promise<number> {
  const [row] = await client.$queryRaw<{ n: bigint }[]>(
    Prisma.sql`SELECT count(*) AS n FROM "Session" s WHERE ${and(filterConditions(filters))}`,
  );
  return Number(row?.n ?? 0);
}
