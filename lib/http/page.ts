/** Pages (server components) call the same operations as actions and routes; these helpers adapt them. */
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { db, type Db } from "@/lib/db";
import { isDatabaseUnavailable } from "@/lib/db/unavailable";
import { AppError, DATABASE_UNAVAILABLE_DIGEST } from "@/lib/errors";
import type { Principal } from "@/lib/server/principal";
import { recordFound } from "@/lib/server/sessions/records";
import { detailRouteOf, PATH_HEADER } from "./detail-routes";
import { resolvePrincipal } from "./principal";

/**
 * The work's value; when the database is out of reach, an error carrying
 * DATABASE_UNAVAILABLE_DIGEST instead of the driver's, so the error page says
 * the database is unreachable and to try again (rather than "something went wrong").
 */
export async function orDatabaseUnavailable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isDatabaseUnavailable(error)) {
      throw Object.assign(new Error("The database is not reachable right now."), {
        digest: DATABASE_UNAVAILABLE_DIGEST,
        cause: error,
      });
    }
    throw error;
  }
}

/** The acting principal and the database, for a page. */
export async function pageContext(): Promise<{ principal: Principal; prisma: Db }> {
  const requestHeaders = await headers();
  const [principal, prisma] = await orDatabaseUnavailable(
    Promise.all([resolvePrincipal(requestHeaders, { accept: ["session"] }), db()]),
  );
  return { principal, prisma };
}

/** The operation's value, or the page's 404 when it answers `not_found`. */
export async function orNotFound<T>(operation: Promise<T>): Promise<T> {
  try {
    return await operation;
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") notFound();
    throw error;
  }
}

/** For `.catch`: null for `not_found`, the error otherwise (when the page shows its own "not found" state). */
export function notFoundAsNull(error: unknown): null {
  if (error instanceof AppError && error.code === "not_found") return null;
  throw error;
}

/**
 * The 404 of a detail page whose record does not exist, raised by the
 * dashboard layout before the page streams: once a loading skeleton has
 * started the response, a page's own `notFound()` can no longer change its
 * 200 (see lib/http/detail-routes.ts).
 */
export async function notFoundUnlessRecordExists(): Promise<void> {
  const path = (await headers()).get(PATH_HEADER);
  const target = path ? detailRouteOf(path) : null;
  if (!target) return;
  const { principal, prisma } = await pageContext();
  if (!(await orDatabaseUnavailable(recordFound(principal, target, prisma)))) notFound();
  if (target.also !== undefined) {
    const also = { kind: target.kind, id: target.also };
    if (!(await orDatabaseUnavailable(recordFound(principal, also, prisma)))) notFound();
  }
}

/** The record kind the request's path names, for the not-found page's words ("Session not found"). */
export async function requestedRecordKind() {
  const path = (await headers()).get(PATH_HEADER);
  return (path ? detailRouteOf(path) : null)?.kind ?? null;
}
