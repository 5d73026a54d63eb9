import { RE2JS } from "re2js";
import { z } from "zod";
import type { SessionEvent } from "./events";
import { deepEqual, isPlainObject } from "./json";

/**
 * Outcome checks (evaluators): does a run — a base session or a branch — end
 * the way it should? Each check reads the run's final output, its tool calls,
 * its step count and cost; the LLM judge asks a model through an injected
 * executor, so this module stays pure. A check that cannot be evaluated (a
 * judge answering garbage, a regex that throws) gives `check_error`, never a
 * pass.
 */

/**
 * Longest regex pattern a check may hold: a pattern runs on the server, against every run it checks. Patterns run
 * on RE2 (linear-time matching, so no pattern can hang the server on a crafted output); lookarounds and
 * backreferences, which need backtracking, are refused when the check is saved.
 */
export const MAX_REGEX_LENGTH = 500;
/** Regex checks read at most this many characters of the final output (bounds the matcher's work). */
export const MAX_REGEX_SUBJECT = 100_000;

const ToolArgs = z.record(z.string(), z.unknown());

export const CheckDefinition = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("output_contains"),
    text: z.string().min(1),
    caseSensitive: z.boolean().optional(),
  }),
  z.strictObject({
    kind: z.literal("output_regex"),
    pattern: z
      .string()
      .min(1)
      .max(MAX_REGEX_LENGTH)
      .superRefine((pattern, ctx) => {
        const error = regexError(pattern, "");
        if (error) ctx.addIssue({ code: "custom", message: `Not a valid regular expression: ${error}` });
      }),
    flags: z
      .string()
      .regex(/^[imsu]*$/, "Flags may only be i, m, s and u.")
      .optional(),
  }),
  z.strictObject({
    kind: z.literal("output_json_path"),
    /** `$.a.b[0]`, `a.b[0]` or `a.b.0`. */
    path: z
      .string()
      .min(1)
      .refine((p) => parseJsonPath(p) !== null, "Write a path like $.order.status or $.items[0].id."),
    equals: z.unknown().refine((v) => v !== undefined, "equals is required (use null to expect null)."),
  }),
  z.strictObject({
    kind: z.literal("tool_called"),
    tool: z.string().min(1),
    /** Every key given must be present in some call's arguments with a deep-equal value. */
    args: ToolArgs.optional(),
  }),
  z.strictObject({
    kind: z.literal("tool_not_called"),
    tool: z.string().min(1),
    /** With args, only a call whose arguments hold this subset counts. */
    args: ToolArgs.optional(),
  }),
  z.strictObject({ kind: z.literal("max_steps"), max: z.number().int().nonnegative() }),
  z.strictObject({ kind: z.literal("max_cost"), maxUsd: z.number().nonnegative() }),
  z.strictObject({
    kind: z.literal("llm_judge"),
    rubric: z.string().min(1).max(10_000),
    /** The model endpoint (name) the judge runs on; absent means the replay's own endpoint. */
    model: z.string().min(1).optional(),
  }),
]);
export type CheckDefinition = z.infer<typeof CheckDefinition>;
export type CheckKind = CheckDefinition["kind"];

/** A check with its name (and id, once saved). */
export const NamedCheck = z.strictObject({
  id: z.string().optional(),
  name: z.string().trim().min(1).max(200),
  definition: CheckDefinition,
});
export type NamedCheck = z.infer<typeof NamedCheck>;

export type CheckOutcome = "pass" | "fail" | "check_error";

export interface CheckVerdict {
  checkId: string | null;
  name: string;
  kind: CheckKind;
  outcome: CheckOutcome;
  reason: string;
  /** The LLM judge's prompt and answer, kept as evidence. */
  judge?: { prompt: JudgeMessage[]; answer: string | null; model: string | null };
}

export interface JudgeMessage {
  role: "system" | "user";
  content: string;
}

/** Asks a model; answers with the raw text it returned. Throws when the model could not be reached. */
export type JudgeExecutor = (request: {
  messages: JudgeMessage[];
  model: string | undefined;
}) => Promise<{ content: string | null; model?: string }>;

/** What a check reads of a run. Steps are the run's events (a session's, or a branch's steps). */
export interface CheckedRun {
  steps: readonly Pick<SessionEvent, "kind" | "name" | "input" | "output" | "usage">[];
  /** The run's final answer; `undefined` when it produced none (paused, failed before the end). */
  finalOutput?: unknown;
}

/** The final answer of a list of events: the last final_output, else the last model reply without tool calls. */
export function finalOutputOf(steps: CheckedRun["steps"]): unknown {
  for (let k = steps.length - 1; k >= 0; k--) {
    const s = steps[k]!;
    if (s.kind === "final_output") return s.output;
  }
  for (let k = steps.length - 1; k >= 0; k--) {
    const s = steps[k]!;
    if (s.kind !== "model_call") continue;
    const output = s.output;
    if (isPlainObject(output) && (!Array.isArray(output.toolCalls) || output.toolCalls.length === 0))
      return output.content;
    return undefined;
  }
  return undefined;
}

export async function evaluateChecks(
  checks: readonly NamedCheck[],
  run: CheckedRun,
  judge?: JudgeExecutor,
): Promise<CheckVerdict[]> {
  const verdicts: CheckVerdict[] = [];
  for (const check of checks) verdicts.push(await evaluateCheck(check, run, judge));
  return verdicts;
}

export async function evaluateCheck(check: NamedCheck, run: CheckedRun, judge?: JudgeExecutor): Promise<CheckVerdict> {
  const head = { checkId: check.id ?? null, name: check.name, kind: check.definition.kind };
  const verdict = (outcome: CheckOutcome, reason: string): CheckVerdict => ({ ...head, outcome, reason });
  const d = check.definition;
  const final = run.finalOutput === undefined ? finalOutputOf(run.steps) : run.finalOutput;
  const noFinal = () => verdict("fail", "The run produced no final output.");

  switch (d.kind) {
    case "output_contains": {
      if (final === undefined) return noFinal();
      const text = textOf(final);
      const found = d.caseSensitive
        ? text.includes(d.text)
        : text.toLocaleLowerCase("en").includes(d.text.toLocaleLowerCase("en"));
      return found
        ? verdict("pass", `The final output contains "${d.text}".`)
        : verdict("fail", `The final output does not contain "${d.text}".`);
    }
    case "output_regex": {
      if (final === undefined) return noFinal();
      const error = regexError(d.pattern, d.flags ?? "");
      if (error) return verdict("check_error", `The pattern is not a valid regular expression: ${error}`);
      const matched = compileRegex(d.pattern, d.flags ?? "")
        .matcher(textOf(final).slice(0, MAX_REGEX_SUBJECT))
        .find();
      return matched
        ? verdict("pass", `The final output matches /${d.pattern}/${d.flags ?? ""}.`)
        : verdict("fail", `The final output does not match /${d.pattern}/${d.flags ?? ""}.`);
    }
    case "output_json_path": {
      if (final === undefined) return noFinal();
      const path = parseJsonPath(d.path);
      if (!path) return verdict("check_error", `"${d.path}" is not a JSON path.`);
      const doc = jsonOf(final);
      if (doc === undefined) return verdict("fail", "The final output is not JSON.");
      const found = valueAt(doc, path);
      if (!found.present) return verdict("fail", `The final output has nothing at ${d.path}.`);
      return deepEqual(found.value, d.equals)
        ? verdict("pass", `${d.path} equals ${short(d.equals)}.`)
        : verdict("fail", `${d.path} is ${short(found.value)}, not ${short(d.equals)}.`);
    }
    case "tool_called":
    case "tool_not_called": {
      const calls = run.steps.filter((s) => s.kind === "tool_call" && s.name === d.tool);
      const matching = d.args ? calls.filter((s) => argsHoldSubset(argsOf(s.input), d.args!)) : calls;
      const what = d.args ? `"${d.tool}" with arguments holding ${short(d.args)}` : `"${d.tool}"`;
      const called = matching.length > 0;
      const detail = called
        ? `${what} was called ${matching.length === 1 ? "once" : `${matching.length} times`}.`
        : calls.length > 0
          ? `${what} was not called ("${d.tool}" was called ${calls.length === 1 ? "once" : `${calls.length} times`} with other arguments).`
          : `${what} was not called.`;
      return verdict(called === (d.kind === "tool_called") ? "pass" : "fail", detail);
    }
    case "max_steps": {
      const n = run.steps.filter((s) => s.kind === "model_call" || s.kind === "tool_call").length;
      return n <= d.max
        ? verdict("pass", `${n} model and tool steps (at most ${d.max}).`)
        : verdict("fail", `${n} model and tool steps, more than ${d.max}.`);
    }
    case "max_cost": {
      let cost = 0;
      let unknown = 0;
      for (const s of run.steps) {
        if (s.kind !== "model_call" && s.kind !== "tool_call") continue;
        if (s.usage?.costUsd !== undefined) cost += s.usage.costUsd;
        else if (s.kind === "model_call") unknown++;
      }
      const note = unknown > 0 ? ` (${unknown} model step${unknown === 1 ? "" : "s"} reported no cost)` : "";
      return cost <= d.maxUsd
        ? verdict("pass", `Cost $${formatUsd(cost)}, at most $${formatUsd(d.maxUsd)}${note}.`)
        : verdict("fail", `Cost $${formatUsd(cost)}, more than $${formatUsd(d.maxUsd)}${note}.`);
    }
    case "llm_judge": {
      const prompt = judgePrompt(d.rubric, run, final);
      if (!judge)
        return {
          ...verdict("check_error", "No model endpoint is configured for the judge; the check was not run."),
          judge: { prompt, answer: null, model: null },
        };
      let answer: { content: string | null; model?: string };
      try {
        answer = await judge({ messages: prompt, model: d.model });
      } catch (error) {
        return {
          ...verdict(
            "check_error",
            `The judge's model could not answer: ${error instanceof Error ? error.message : String(error)}`,
          ),
          judge: { prompt, answer: null, model: d.model ?? null },
        };
      }
      const evidence = { prompt, answer: answer.content, model: answer.model ?? d.model ?? null };
      const parsed = parseJudgeAnswer(answer.content);
      if (!parsed.ok) return { ...verdict("check_error", parsed.message), judge: evidence };
      return { ...verdict(parsed.verdict, parsed.reason), judge: evidence };
    }
  }
}

/** The judge's instructions: a rubric, the final output and the tool calls; the answer must be one JSON object. */
export function judgePrompt(rubric: string, run: CheckedRun, final: unknown): JudgeMessage[] {
  const tools = run.steps
    .filter((s) => s.kind === "tool_call")
    .map((s) => ({ tool: s.name, args: argsOf(s.input), output: s.output }));
  const transcript = {
    finalOutput: final === undefined ? null : final,
    toolCalls: tools.slice(0, 200),
  };
  return [
    {
      role: "system",
      content:
        'You grade the outcome of an AI agent\'s run against a rubric. Answer with one JSON object and nothing else: {"verdict": "pass" | "fail", "reason": "<one or two sentences>"}.',
    },
    {
      role: "user",
      content: `Rubric:\n${rubric}\n\nThe run (final output and tool calls, as JSON):\n${truncate(JSON.stringify(transcript), 50_000)}`,
    },
  ];
}

/** Reads `{"verdict": "pass"|"fail", "reason": "…"}` from a judge's answer (a fenced block is accepted). */
export function parseJudgeAnswer(
  content: string | null,
): { ok: true; verdict: "pass" | "fail"; reason: string } | { ok: false; message: string } {
  if (content === null || content.trim() === "")
    return { ok: false, message: "The judge gave an empty answer; no verdict." };
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      message: `The judge's answer is not the JSON object asked for; no verdict. It began: "${truncate(content.trim(), 120)}"`,
    };
  }
  if (!isPlainObject(value) || (value.verdict !== "pass" && value.verdict !== "fail"))
    return { ok: false, message: 'The judge\'s answer has no "verdict" of "pass" or "fail"; no verdict.' };
  const reason = typeof value.reason === "string" && value.reason.trim() ? value.reason.trim() : "(no reason given)";
  return { ok: true, verdict: value.verdict, reason };
}

/**
 * Whether a run passed its outcome checks: every verdict a pass (true), some a fail (false), or no verdict
 * at all — no checks, or one that could not be evaluated (null: unknown is never counted as a pass).
 */
export function runPassed(verdicts: readonly Pick<CheckVerdict, "outcome">[] | null | undefined): boolean | null {
  if (!verdicts || verdicts.length === 0 || verdicts.some((v) => v.outcome === "check_error")) return null;
  return verdicts.every((v) => v.outcome === "pass");
}

/** How a check's result moved from the base run to the branch, in words: "base failed → branch passed". */
export function verdictChange(base: CheckOutcome | null, branch: CheckOutcome | null): string {
  const word = (o: CheckOutcome | null) =>
    o === "pass" ? "passed" : o === "fail" ? "failed" : o === "check_error" ? "could not be checked" : "not checked";
  return `base ${word(base)} → branch ${word(branch)}`;
}

// ---------------------------------------------------------------------------

const RE2_FLAGS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  u: 0, // RE2 matches Unicode code points always
};

function compileRegex(pattern: string, flags: string): RE2JS {
  let bits = 0;
  for (const flag of flags) bits |= RE2_FLAGS[flag] ?? 0;
  return RE2JS.compile(pattern, bits);
}

function regexError(pattern: string, flags: string): string | null {
  try {
    compileRegex(pattern, flags);
    return null;
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, "");
    return /\(\?<?[=!]|\\[1-9]/.test(pattern)
      ? `${message} (lookarounds and backreferences are not supported: patterns run in linear time)`
      : message;
  }
}

/** `$.a.b[0]`, `a.b[0]`, `a.b.0`, `$["a b"]` → path segments; null when malformed. */
export function parseJsonPath(raw: string): (string | number)[] | null {
  let s = raw.trim();
  if (s === "$") return [];
  if (s.startsWith("$")) s = s.slice(1);
  else s = `.${s}`;
  const path: (string | number)[] = [];
  const re = /^(?:\.([A-Za-z_$][\w$-]*|\d+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\])/;
  while (s.length > 0) {
    const m = re.exec(s);
    if (!m) return null;
    if (m[1] !== undefined) path.push(/^\d+$/.test(m[1]) ? Number(m[1]) : m[1]);
    else if (m[2] !== undefined) path.push(Number(m[2]));
    else path.push(JSON.parse(`"${m[3]}"`) as string);
    s = s.slice(m[0].length);
  }
  return path;
}

function valueAt(doc: unknown, path: (string | number)[]): { present: boolean; value?: unknown } {
  let cur = doc;
  for (const seg of path) {
    if (Array.isArray(cur) && typeof seg === "number" && seg < cur.length) cur = cur[seg];
    else if (isPlainObject(cur) && Object.prototype.hasOwnProperty.call(cur, String(seg))) cur = cur[String(seg)];
    else return { present: false };
  }
  return { present: true, value: cur };
}

/** A final output as text: strings as they are, anything else as JSON. */
function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (isPlainObject(value) && typeof value.content === "string" && Object.keys(value).length <= 2) return value.content;
  return JSON.stringify(value) ?? "";
}

/** A final output as a JSON document: a string holding JSON is parsed; a non-JSON string is not a document. */
function jsonOf(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function argsOf(input: unknown): unknown {
  return isPlainObject(input) && "args" in input ? input.args : input;
}

function argsHoldSubset(args: unknown, subset: Record<string, unknown>): boolean {
  if (!isPlainObject(args)) return false;
  for (const [k, v] of Object.entries(subset)) {
    if (!Object.prototype.hasOwnProperty.call(args, k) || !deepEqual(args[k], v)) return false;
  }
  return true;
}

function short(value: unknown): string {
  return truncate(JSON.stringify(value) ?? String(value), 80);
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}…`;
}

function formatUsd(n: number): string {
  return n.toFixed(4).replace(/0+$/, "").replace(/\.$/, "");
}
