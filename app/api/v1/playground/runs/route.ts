import { route } from "@/lib/http/route";
import { PlaygroundRunInput, runPlayground } from "@/lib/server/playground/playground";

export const dynamic = "force-dynamic";

/**
 * `{ sessionId, step, endpointId?, request?: { messages?, tools?, temperature? } }` sends the recorded model call
 * at `step` again (each field of `request` replaces the recorded one) to the model endpoint named (id or name;
 * by default the one fork-live would use) → 200 `{ run: { endpoint, model, output, usage, costMicros, durationMs,
 * sent } }`. Nothing is stored. Refused: 400 (bad input, no endpoint, host not allowed), 502 (the endpoint failed
 * or timed out).
 */
export const POST = route<Record<string, never>, undefined, typeof PlaygroundRunInput>(
  { accept: ["api_key"], authorize: "replays.run", body: PlaygroundRunInput },
  async ({ prisma, principal, body }) => {
    return Response.json({ run: await runPlayground(principal, body, prisma) });
  },
);
