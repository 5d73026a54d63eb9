/**
 * A cluster fix's edits of tools' results: each fitted to the members and the control as an experiment over a
 * cohort fits one (experiment-create.ts), refused when it applies to no member, then composed per session (two
 * edits may apply to one session: different tools, or one tool with different argument values). The experiment
 * stores them as one cohort edit whose `edits` lists them all, so a reader of the older shape still reads the
 * first.
 */
import { z } from "zod";
import type { Db } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { composeCohortEdits, CohortEdit, type Edit } from "@/lib/replay";
import { fitEditToCohort, type FittedCohortEdit } from "../experiments/experiment-create";

/** Most edits one fix takes (a smallest-fix search takes as many changes). */
export const MAX_FIX_EDITS = 12;

/** Where an edit came in: `edit` (the one edit) or `edits[i]`. */
const fieldOf = (several: boolean, i: number) => (several ? `edits[${i}]` : "edit");

/**
 * The edits fitted to the members and the control and composed per session (undefined: no edit). Refused,
 * naming the edit, when one applies to no member (it could fix none), and when two set one call differently.
 */
export async function fitFixEdits(
  prisma: Db,
  given: { edit?: CohortEdit | undefined; edits?: CohortEdit[] | undefined },
  memberIds: readonly string[],
  control: readonly string[],
): Promise<FittedCohortEdit | undefined> {
  const several = given.edits !== undefined;
  const list = given.edits ?? (given.edit ? [given.edit] : []);
  if (list.length === 0) return undefined;
  const sessions = [...memberIds, ...control];
  const fits: FittedCohortEdit[] = [];
  for (const [i, edit] of list.entries()) {
    const field = fieldOf(several, i);
    const fitted = await fitEditToCohort(prisma, edit, sessions, field);
    if (!memberIds.some((id) => fitted.edits.has(id)))
      throw new AppError(
        "invalid_input",
        `${several ? `Edit ${i + 1}` : "The edit"} applies to none of the cluster's ${memberIds.length} sessions: none has a matching call of ${edit.tool}.`,
        [{ path: `${field}.${edit.args ? "args" : "tool"}`, message: "matches no recorded call in the cluster" }],
      );
    fits.push(fitted);
  }
  if (fits.length === 1) return fits[0];
  const reasons = fits.map((f) => new Map(f.notApplied.map((n) => [n.sessionId, n.reason])));
  const edits = new Map<string, Edit[]>();
  const notApplied: FittedCohortEdit["notApplied"] = [];
  for (const sessionId of sessions) {
    const composed = composeCohortEdits(fits.map((f) => f.edits.get(sessionId) ?? []));
    if (!composed.ok) {
      const [a, b] = [list[composed.first]!, list[composed.second]!];
      throw new AppError(
        "invalid_input",
        `Edits ${composed.first + 1} and ${composed.second + 1} both set the result of one call of ${b.tool} (step ${composed.seq}), to different values: keep one, or give them argument values that tell the calls apart.`,
        [
          {
            path: fieldOf(true, composed.second),
            message: `sets a call of ${a.tool} that edit ${composed.first + 1} sets`,
          },
        ],
      );
    }
    if (composed.edits.length > 0) edits.set(sessionId, composed.edits);
    else notApplied.push({ sessionId, reason: reasons.flatMap((r) => r.get(sessionId) ?? []).join(" ") });
  }
  return { edit: list[0]!, all: list, edits, notApplied };
}

/** How a fix's experiment stored its edits: one `edit` (every fix before several), or `edits` listing them all. */
const StoredFixEdits = z.object({ edit: CohortEdit, edits: z.array(CohortEdit).optional() });

/** The edits a fix ran, read from its experiment's stored cohort edit (none: an empty list). */
export function storedFixEdits(stored: unknown): CohortEdit[] {
  const parsed = StoredFixEdits.safeParse(stored);
  return parsed.success ? (parsed.data.edits ?? [parsed.data.edit]) : [];
}
