/**
 * The detail pages (`/sessions/<id>`, `/replays/<id>/compare`…) and the
 * record each one shows. The dashboard's pages stream (their loading
 * skeletons start the response), and a streamed response keeps the 200 it
 * started with: so the dashboard layout checks that the record exists before
 * anything streams, and an unknown id is a real 404. The proxy hands the
 * layout the request's path in PATH_HEADER (layouts are not told the path).
 */
import type { RecordKind } from "@/lib/db/records";

export type { RecordKind };

/** Set by the proxy on every request (a client's own value is overwritten). */
export const PATH_HEADER = "x-branchpoint-path";

const ROUTES: readonly [RegExp, RecordKind][] = [
  [/^\/sessions\/([^/]+)(?:\/replay|\/investigate)?\/?$/, "session"],
  // Two sessions compared: both must exist.
  [/^\/sessions\/([^/]+)\/compare\/([^/]+)\/?$/, "session"],
  [/^\/replays\/([^/]+)(?:\/compare)?\/?$/, "replay"],
  [/^\/policies\/([^/]+)(?:\/versions)?\/?$/, "policy"],
  [/^\/reports\/([^/]+)(?:\/edit)?\/?$/, "report"],
  [/^\/experiments\/([^/]+)\/?$/, "experiment"],
  [/^\/trials\/([^/]+)\/?$/, "trials"],
  [/^\/investigations\/([^/]+)\/?$/, "investigation"],
  [/^\/failures\/([^/]+)\/?$/, "cluster"],
  [/^\/checks\/([^/]+)\/?$/, "check"],
  [/^\/reviews\/([^/]+)\/?$/, "reviewQueue"],
  [/^\/datasets\/([^/]+)\/?$/, "dataset"],
];

/** Pages that sit where an id would (`/reports/new`, `/failures/regressions`, `/failures/watches`): not records. */
const STATIC_SEGMENTS = new Set(["new", "regressions", "watches"]);

/** The record a path's page shows, or null for any other path (lists, settings, API, assets). */
export function detailRouteOf(pathname: string): { kind: RecordKind; id: string; also?: string } | null {
  for (const [pattern, kind] of ROUTES) {
    const m = pattern.exec(pathname);
    if (!m?.[1]) continue;
    let id: string;
    let also: string | undefined;
    try {
      id = decodeURIComponent(m[1]);
      also = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
    } catch {
      return null;
    }
    if (STATIC_SEGMENTS.has(id)) return null;
    // A page that shows two records of the kind (two sessions compared) names the second in `also`.
    return also === undefined ? { kind, id } : { kind, id, also };
  }
  return null;
}
