/** Watches in words, for the pages (the browser too). */
import type { WatchCondition } from "@/lib/server/watches/watch-inputs";

/** How a watch's condition reads in a sentence. */
export function conditionWords(c: WatchCondition, checkName?: string): string {
  switch (c.kind) {
    case "check_pass_rate_below":
      return `${checkName ?? "the check"}'s pass rate over the last ${c.lastN} sessions below ${Math.round(c.threshold * 1000) / 10}%`;
    case "new_cluster":
      return "a new failure cluster";
    case "cluster_growth":
      return `a cluster growing by ${c.perDay} or more sessions a day`;
    case "regression":
      return "a regression of a new agent version";
  }
}
