/** Pages (server components) call the same operations as actions and routes; these helpers adapt them. */
import { notFound } from "next/navigation";
import { db, type Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import type { Principal } from "@/lib/server/principal";
import { currentPrincipal } from "./principal";

/** The acting principal and the database, for a page. */
export async function pageContext(): Promise<{ principal: Principal; prisma: Db }> {
  const [principal, prisma] = await Promise.all([currentPrincipal(), db()]);
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
