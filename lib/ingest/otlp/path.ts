import type { ImportIssue } from "../types";

export type PathKey = string | number;
export type Path = readonly PathKey[];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `resourceSpans[0].scopeSpans[0].spans[3].attributes["gen_ai.tool.call.arguments"]`. */
export function formatPath(path: Path): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (IDENTIFIER.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

/** Collects issues up to a limit, so a huge malformed payload does not produce a huge answer. */
export class IssueList {
  readonly items: ImportIssue[] = [];
  truncated = false;
  constructor(private readonly limit = 100) {}

  add(path: Path | string, message: string): void {
    if (this.items.length >= this.limit) {
      this.truncated = true;
      return;
    }
    this.items.push({ path: typeof path === "string" ? path : formatPath(path), message });
  }

  get length(): number {
    return this.items.length;
  }

  /** The issues, with a closing note when some were left out. */
  list(): ImportIssue[] {
    return this.truncated
      ? [...this.items, { path: "", message: `more issues were left out after the first ${this.limit}` }]
      : [...this.items];
  }
}
