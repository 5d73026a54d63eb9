-- CreateTable
CREATE TABLE "ReplayComparison" (
    "replayId" TEXT NOT NULL,
    "stepsKey" TEXT NOT NULL,
    "pairCount" INTEGER NOT NULL,
    "baseCount" INTEGER NOT NULL,
    "branchCount" INTEGER NOT NULL,
    "counts" JSONB NOT NULL,
    "firstDivergence" JSONB,
    "divergenceBranchIndex" INTEGER,
    "metrics" JSONB NOT NULL,
    "finalOutputDiff" JSONB,
    "baseFinalOutput" JSONB,
    "branchFinalOutput" JSONB,
    "builtAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReplayComparison_pkey" PRIMARY KEY ("replayId")
);

-- CreateTable
CREATE TABLE "ReplayComparisonPair" (
    "replayId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "pairId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "baseSeq" INTEGER,
    "baseIndex" INTEGER,
    "branchSeq" INTEGER,
    "branchIndex" INTEGER,
    "source" TEXT,
    "inputOnly" BOOLEAN NOT NULL DEFAULT false,
    "typeRank" INTEGER NOT NULL,
    "changeRank" INTEGER,
    "changesBefore" INTEGER NOT NULL,

    CONSTRAINT "ReplayComparisonPair_pkey" PRIMARY KEY ("replayId","position")
);

-- CreateIndex
CREATE UNIQUE INDEX "ReplayComparisonPair_replayId_pairId_key" ON "ReplayComparisonPair"("replayId", "pairId");

-- CreateIndex
CREATE INDEX "ReplayComparisonPair_replayId_type_typeRank_idx" ON "ReplayComparisonPair"("replayId", "type", "typeRank");

-- CreateIndex
CREATE INDEX "ReplayComparisonPair_replayId_changeRank_idx" ON "ReplayComparisonPair"("replayId", "changeRank");

-- AddForeignKey
ALTER TABLE "ReplayComparison" ADD CONSTRAINT "ReplayComparison_replayId_fkey" FOREIGN KEY ("replayId") REFERENCES "Replay"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ReplayComparisonPair" ADD CONSTRAINT "ReplayComparisonPair_replayId_fkey" FOREIGN KEY ("replayId") REFERENCES "ReplayComparison"("replayId") ON DELETE CASCADE ON UPDATE CASCADE;
