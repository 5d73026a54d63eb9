-- Online checks: outcome checks attached to agents, their verdicts per session, and LLM-judge spend per day.

-- CreateTable
CREATE TABLE "CheckAttachment" (
    "id" TEXT NOT NULL,
    "checkId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "fromVersionId" TEXT,
    "dailyBudgetUsd" DOUBLE PRECISION,
    "judgeCallUsd" DOUBLE PRECISION,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "backfillStatus" TEXT NOT NULL DEFAULT 'none',
    "backfillTotal" INTEGER NOT NULL DEFAULT 0,
    "backfillDone" INTEGER NOT NULL DEFAULT 0,
    "backfillCursor" TEXT,
    "backfillError" TEXT,
    "backfillStarted" TIMESTAMPTZ(3),
    "backfillFinished" TIMESTAMPTZ(3),

    CONSTRAINT "CheckAttachment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SessionCheckVerdict" (
    "sessionId" TEXT NOT NULL,
    "checkId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "agentVersionId" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "judge" JSONB,
    "costUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "eventCount" INTEGER NOT NULL,
    "judgedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SessionCheckVerdict_pkey" PRIMARY KEY ("sessionId","checkId")
);

-- CreateTable
CREATE TABLE "CheckSpend" (
    "checkId" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "spentUsd" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "calls" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "CheckSpend_pkey" PRIMARY KEY ("checkId","agentId","day")
);

-- CreateIndex
CREATE UNIQUE INDEX "CheckAttachment_checkId_agentId_key" ON "CheckAttachment"("checkId", "agentId");

-- CreateIndex
CREATE INDEX "CheckAttachment_agentId_idx" ON "CheckAttachment"("agentId");

-- CreateIndex
CREATE INDEX "SessionCheckVerdict_checkId_agentId_agentVersionId_outcome_idx" ON "SessionCheckVerdict"("checkId", "agentId", "agentVersionId", "outcome");

-- AddForeignKey
ALTER TABLE "CheckAttachment" ADD CONSTRAINT "CheckAttachment_checkId_fkey" FOREIGN KEY ("checkId") REFERENCES "Check"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CheckAttachment" ADD CONSTRAINT "CheckAttachment_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SessionCheckVerdict" ADD CONSTRAINT "SessionCheckVerdict_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SessionCheckVerdict" ADD CONSTRAINT "SessionCheckVerdict_checkId_fkey" FOREIGN KEY ("checkId") REFERENCES "Check"("id") ON DELETE CASCADE ON UPDATE CASCADE;
