/** Pages (server components) call the same operations as actions and routes; these helpers adapt them. */
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { db, type Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { Principal } from "@/lib/server/principal";
import { recordFound } from "@/lib/server/records";
import { detailRouteOf, PATH_HEADER } from "./detail-routes";
import { resolvePrincipal } from "./principal";

/** The acting principal and the database, for a page. */
export async function pageContext(): Promise<{ principal: Principal; prisma: Db }> {
  const requestHeaders = await headers();
  const [principal, prisma] = await Promise.all([resolvePrincipal(requestHeaders, { accept: ["session"] }), db()]);
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
  if (!(await recordFound(principal, target, prisma))) notFound();
}

/** The record kind the request's path names, for the not-found page's words ("Session not found"). */
export async function requestedRecordKind() {
  const path = (await headers()).get(PATH_HEADER);
  return (path ? detailRouteOf(path) : null)?.kind ?? null;
}
