-- CreateTable
CREATE TABLE "ReplayStepDraft" (
    "attempt" TEXT NOT NULL,
    "replayId" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "baseSeq" INTEGER,
    "input" JSONB,
    "output" JSONB,
    "error" JSONB,
    "status" TEXT NOT NULL,
    "cacheKey" TEXT,
    "miss" JSONB,
    "detail" JSONB,
    "inputPrefixIdx" INTEGER,
    "inputPrefixCount" INTEGER,
    "inputDigest" TEXT,

    CONSTRAINT "ReplayStepDraft_pkey" PRIMARY KEY ("attempt","idx")
);

-- CreateIndex
CREATE INDEX "ReplayStepDraft_replayId_idx" ON "ReplayStepDraft"("replayId");

-- AddForeignKey
ALTER TABLE "ReplayStepDraft" ADD CONSTRAINT "ReplayStepDraft_replayId_fkey" FOREIGN KEY ("replayId") REFERENCES "Replay"("id") ON DELETE CASCADE ON UPDATE CASCADE;
