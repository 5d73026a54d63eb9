-- AlterTable
ALTER TABLE "Replay" ADD COLUMN     "checks" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "modelEndpointId" TEXT,
ADD COLUMN     "trialIndex" INTEGER,
ADD COLUMN     "trialSetId" TEXT,
ADD COLUMN     "verdicts" JSONB;

-- CreateTable
CREATE TABLE "Check" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Check_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Check_name_key" ON "Check"("name");

-- CreateIndex
CREATE INDEX "Replay_trialSetId_trialIndex_idx" ON "Replay"("trialSetId", "trialIndex");
