import { route } from "@/lib/http/route";
import { sessionsExportAnswer } from "@/lib/http/session-export";
import { SessionExportQuery } from "@/lib/session-list/query";

export const dynamic = "force-dynamic";

/** The sessions the list's filters match, as JSON Lines of native documents (lib/http/session-export.ts). */
export const GET = route({ accept: ["api_key"], query: SessionExportQuery }, sessionsExportAnswer);
