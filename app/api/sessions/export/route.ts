import { route } from "@/lib/http/route";
import { sessionsExportAnswer } from "@/lib/http/session-export";
import { SessionExportQuery } from "@/lib/session-list/query";

export const dynamic = "force-dynamic";

/** The session list's "Export" link: GET /api/v1/sessions/export for the signed-in user. */
export const GET = route({ accept: ["session"], query: SessionExportQuery }, sessionsExportAnswer);
