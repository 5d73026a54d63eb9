/** The pull form's score filter (Langfuse pulls), as the form sends it to the pull's schema. */
export const SCORE_OPS = ["=", "!=", ">", ">=", "<", "<="] as const;
export type ScoreOp = (typeof SCORE_OPS)[number];

/**
 * The score filter as typed: none without a name; a value that reads as a number is one, `true` / `false` a
 * true/false score, anything else text (the server refuses an order comparison of text, naming the field).
 */
export function scoreFilter(name: string, op: ScoreOp, value: string) {
  if (name.trim() === "") return {};
  const t = value.trim();
  const typed = t === "true" ? true : t === "false" ? false : t !== "" && Number.isFinite(Number(t)) ? Number(t) : t;
  return { score: { name: name.trim(), op, value: typed } };
}
