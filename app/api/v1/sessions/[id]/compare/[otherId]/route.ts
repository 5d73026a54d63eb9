import { route } from "@/lib/http/route";
import { presentSessionComparisonJson } from "@/lib/http/replay-stream";
import { streamedJson } from "@/lib/http/stream";
import { openSessionComparisonWindow, SessionComparisonQuery } from "@/lib/server/sessions/session-compare";

export const dynamic = "force-dynamic";

/**
 * Two recorded sessions aligned step by step (two runs of one task, before and after a release), as
 * `GET /api/v1/replays/:id/comparison?from=&limit=` aligns a branch with its base: the session `:id` is on the
 * base side of every pair, `:otherId` on the branch side. Always a window of the pairs, positions
 * [from, from + limit) (`from` default 0, `limit` default 100, at most 1,000):
 *
 * ```
 * { "comparison": {
 *     "sessionId": ":id", "otherSessionId": ":otherId",
 *     "base":   { "id", "title", "externalId", "agent", "agentVersion", "status", "outcome", "eventCount", "startedAt" },
 *     "branch": { …the same, of :otherId },
 *     "firstDivergence": { "pairIndex", "id", "type", "baseSeq", "branchSeq", "summary" } | null,
 *     "pairs": [{ "id", "type": "equal" | "changed" | "inserted" | "removed",
 *                 "baseSeq", "branchSeq", "base": event | null, "branch": event | null, "delta"? }],
 *     "finalOutputDiff": [{ "type": "equal" | "added" | "removed", "value" }] | null,
 *     "metrics": { "steps": { "base", "branch", "delta" }, …, "first_divergence_step", "tool_sequence_distance", … },
 *     "counts": { "all", "changes", "changed", "inserted", "removed", "unreached" },
 *     "window": { "from", "limit", "total", "nextFrom" } } }
 * ```
 *
 * An event is as `GET /api/v1/sessions/:id` gives it (model inputs whole; `?inputs=delta`: as stored, with
 * `inputPrefix`); a changed pair's `delta` is the structural diff of the two (jsondiffpatch). A pair id is
 * `p<base seq>-<branch seq>`, `i<branch seq>` (only in :otherId) or `r<base seq>` (only in :id). Both sessions are
 * finished recordings, so no pair is "unreached" and nothing replay-specific (evidence, fixtures) is there.
 * 404 when either id names no session, 400 for a session compared with itself. The alignment is computed per
 * request in linear work (see lib/server/sessions/session-compare.ts for why it is not stored).
 */
export const GET = route<{ id: string; otherId: string }, typeof SessionComparisonQuery>(
  { accept: ["api_key"], query: SessionComparisonQuery },
  async ({ query, prisma, params, principal }) => {
    const opened = await openSessionComparisonWindow(
      principal,
      { sessionId: params.id, otherId: params.otherId, ...query },
      prisma,
    );
    return streamedJson(
      presentSessionComparisonJson(opened.document, opened.baseRows, opened.otherRows, {
        inputs: opened.inputs,
        start: opened.start,
      }),
      { where: `GET /api/v1/sessions/${params.id}/compare/${params.otherId}` },
    );
  },
);
