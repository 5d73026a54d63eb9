/**
 * Whether an error means the database is out of reach (server down,
 * connection refused or dropped, pool exhausted) rather than something the
 * request did. Read from codes only: Prisma's P1xxx/P2024, the driver
 * adapter's error kinds, PostgreSQL's SQLSTATE classes 08 (connection) and
 * 57P (operator intervention), and Node's socket codes, along the cause chain.
 *
 * 55000 is two things in PostgreSQL: "object not in prerequisite state" from
 * a statement (a request's own doing), and "database … is not currently
 * accepting connections" when a connection is refused (ALLOW_CONNECTIONS
 * false). Only the second ends the connection, so only a FATAL 55000 counts.
 */

const PRISMA_CODES = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2028"]);
const ADAPTER_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);

function sqlStateUnavailable(code: string): boolean {
  return code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300";
}

/** 55000 raised while connecting (FATAL: the server closes the connection), not by a statement (ERROR). */
function refusedConnection(code: unknown, severity: unknown): boolean {
  return code === "55000" && severity === "FATAL";
}

type Shape = {
  code?: unknown;
  severity?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
  errors?: unknown;
};

export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === null || typeof e !== "object" || seen.has(e)) continue;
    seen.add(e);
    const s = e as Shape;
    if (
      typeof s.code === "string" &&
      (PRISMA_CODES.has(s.code) ||
        SOCKET_CODES.has(s.code) ||
        (/^(08|57P0|53300)/.test(s.code) && sqlStateUnavailable(s.code)))
    )
      return true;
    if (refusedConnection(s.code, s.severity) || refusedConnection(s.originalCode, s.severity)) return true;
    if (typeof s.kind === "string" && ADAPTER_KINDS.has(s.kind)) return true;
    if (typeof s.originalCode === "string" && (SOCKET_CODES.has(s.originalCode) || sqlStateUnavailable(s.originalCode)))
      return true;
    queue.push(s.cause, s.meta?.driverAdapterError, s.meta?.driverAdapterError?.cause);
    if (Array.isArray(s.errors)) queue.push(...(s.errors as unknown[]));
  }
  return false;
}
