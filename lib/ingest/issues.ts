import type { z } from "zod";
import type { ImportIssue } from "./types";

/** A location inside an input document, as zod reports it. */
export type Path = readonly PropertyKey[];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `[0].traj[3].tool_calls[0].function.arguments`: indices in brackets, identifiers dotted, other keys quoted. */
export function formatPath(path: Path): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && IDENTIFIER.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/**
 * Where a record sits in its input: `line` for JSONL (reported as `line 3: …`),
 * `path` for the part of the document the record is (e.g. `[2]` in an array).
 */
export type Location = { line?: number; path: Path };

export const ROOT: Location = { path: [] };

export function at(location: Location, ...more: Path): Location {
  return { ...location, path: [...location.path, ...more] };
}

export function issueAt(location: Location, message: string): ImportIssue {
  const path = formatPath(location.path);
  if (location.line === undefined) return { path, message };
  return {
    path: path === "" ? `line ${location.line}` : `line ${location.line}: ${path}`,
    message,
  };
}

/** zod's issues as ImportIssues under `location`; an unknown key is reported at its own path. */
export function zodIssues(error: z.ZodError, location: Location): ImportIssue[] {
  const issues: ImportIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        issues.push(issueAt(at(location, ...issue.path, key), "unknown field"));
      }
      continue;
    }
    issues.push(issueAt(at(location, ...issue.path), issue.message));
  }
  return issues;
}
