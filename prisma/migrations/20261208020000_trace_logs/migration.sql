-- GenAI events sent to /v1/logs as OTLP log records, kept by the span they name (trace id, span id): a span
-- stored before or after them takes them as its events (lib/server/ingest/traces.ts).
CREATE TABLE "TraceLog" (
    "id" TEXT NOT NULL,
    "traceId" TEXT NOT NULL,
    "spanId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "receivedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TraceLog_pkey" PRIMARY KEY ("id")
);

-- A span export reads the logs of its traces.
CREATE INDEX "TraceLog_traceId_idx" ON "TraceLog"("traceId");
