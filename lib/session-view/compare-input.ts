/**
 * The inputs of a comparison's window of rows and of its find, shared by a replay's comparison and a
 * comparison of two sessions (each names its own pair: a replay, or two sessions).
 */
import { z } from "zod";
import { COMPARE_FILTERS } from "./compare-rows";

/** Rows per window when none is asked for, and at most. */
export const COMPARE_ROWS_DEFAULT = 100;
export const COMPARE_ROWS_MAX = 500;

const Filter = z.enum(COMPARE_FILTERS).default("all");

/** A window of the rows a filter shows. */
export const compareWindowFields = {
  filter: Filter,
  /** The position of the window's first row among the rows the filter shows, default 0. */
  cursor: z.coerce.number().int().min(0).max(2_147_483_647).optional(),
  limit: z.coerce.number().int().min(1).max(COMPARE_ROWS_MAX).default(COMPARE_ROWS_DEFAULT),
};

/** A pair to find, or to move from, among the rows a filter shows. */
export function compareFindFields<P extends z.ZodType>(pairId: P) {
  return {
    filter: Filter,
    /** The pair to find, or to move from (none: from the top or the bottom). */
    pair: pairId.optional(),
    /** Move to the next (1) or previous (−1) change among the rows the filter shows; absent: find `pair` itself. */
    direction: z.union([z.literal(1), z.literal(-1)]).optional(),
  };
}
