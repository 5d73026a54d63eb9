import type { JsonPath, PolicyIssue } from "@/lib/replay";

/** Issues whose path is `path` exactly, or (with `within`) lies under it. */
export function issuesAt(
  issues: readonly PolicyIssue[],
  path: JsonPath,
  opts: { within?: boolean } = {},
): PolicyIssue[] {
  return issues.filter((i) => {
    if (opts.within ? i.path.length < path.length : i.path.length !== path.length) return false;
    return path.every((p, k) => i.path[k] === p);
  });
}

/** A path as people read it: tools.overrides.refund_payment.cases[0]. */
export function pathLabel(path: JsonPath): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${p}` : p;
  return out || "(document)";
}
