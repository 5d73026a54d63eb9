/** What people write on sessions and reports (annotations, comments): their text, and who may delete it. */
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { can } from "./authz";
import type { Principal } from "./principal";
import { hasLoneSurrogate } from "@/lib/hostile/text";

/**
 * Trimmed, not empty, at most `max` characters, and none of what the database cannot store (NUL; a lone surrogate
 * is repaired before inputs reach here, and refused here should one come another way). `what` names the field.
 */
export const typedText = (what: string, max: number) =>
  z
    .string(`${what} must be text.`)
    .trim()
    .min(1, `${what} is empty.`)
    .max(max, `${what} is at most ${max} characters.`)
    .refine((v) => !v.includes("\u0000") && !hasLoneSurrogate(v), `${what} holds a character that cannot be stored.`);

/** Refuses unless the principal wrote the note (by account; without one, by name) or is an admin. */
export function refuseUnlessAuthor(
  principal: Principal,
  note: { author: string; authorId: string | null },
  what: string,
) {
  const own =
    principal.userId !== null
      ? note.authorId === principal.userId
      : note.authorId === null && note.author === principal.name;
  if (!own && principal.role !== "admin")
    throw new AppError("forbidden", `Only ${note.author}, who wrote this ${what}, or an admin may delete it.`);
}

/**
 * What a page tells the cards of notes about who is reading: whether they may write one, their name (to know their
 * own notes), and whether they may delete anyone's (an admin who is not read-only).
 */
export function noteReader(principal: Principal) {
  return {
    canWrite: can(principal, "notes.write"),
    name: principal.name,
    admin: principal.role === "admin" && !principal.readOnly,
  };
}
