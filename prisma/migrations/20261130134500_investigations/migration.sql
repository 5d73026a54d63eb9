-- CreateTable
CREATE TABLE "Investigation" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "sessionId" TEXT NOT NULL,
    "replayId" TEXT,
    "params" JSONB NOT NULL,
    "estimate" JSONB NOT NULL,
    "probes" JSONB NOT NULL DEFAULT '[]',
    "result" JSONB,
    "error" JSONB,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Investigation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Investigation_sessionId_createdAt_idx" ON "Investigation"("sessionId", "createdAt" DESC);

-- AddForeignKey
ALTER TABLE "Investigation" ADD CONSTRAINT "Investigation_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
