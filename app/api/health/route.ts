import { healthAnswer } from "@/lib/http/health";
import { publicRoute } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** GET /api/health: public; its own 503 body when the database does not answer (lib/http/health.ts). */
export const GET = publicRoute(healthAnswer);
