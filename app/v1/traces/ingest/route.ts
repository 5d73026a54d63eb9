import { withImportSlot } from "@/lib/http/heavy";
import { AppError } from "@/lib/errors";
import { describeIssues } from "@/lib/http/otlp";
import { route } from "@/lib/http/route";
import { parseOpenAiAgentsExport } from "@/lib/ingest/openai-agents-parse";
import { ingestAgentsItems } from "@/lib/server/sessions/sessions";
import { z } from "zod";

/**
 * The OpenAI Agents SDK trace exporter's body, `{ "data": [trace, span, …] }`
 * (point its `endpoint` here). Items are stored by id and their sessions
 * rebuilt from every stored item of their group, in one transaction. The key
 * in any header form trace exporters send; `{ error }` bodies, as /api/v1.
 */
export const POST = route(
  { accept: ["trace_key"], authorize: "sessions.import", body: z.unknown() },
  async ({ body, prisma, principal }) => {
    const parsed = parseOpenAiAgentsExport(body);
    if (!parsed.ok)
      throw new AppError(
        "invalid_input",
        describeIssues("The body is not a valid Agents SDK trace export", parsed.issues),
        parsed.issues,
      );
    const result = await withImportSlot(() => ingestAgentsItems(principal, { items: parsed.items }, prisma));
    if (!result.ok)
      throw new AppError(
        "invalid_input",
        describeIssues("Some spans have missing or mistyped data", result.issues),
        result.issues,
      );
    return Response.json(
      { sessions: result.sessions.map((s) => ({ id: s.id, eventCount: s.eventCount })) },
      { status: 200 },
    );
  },
);
