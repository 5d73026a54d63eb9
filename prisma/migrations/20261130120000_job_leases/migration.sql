-- AlterTable
ALTER TABLE "Experiment" ADD COLUMN     "cancelRequested" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "Replay" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "leaseOwner" TEXT,
ADD COLUMN     "leaseUntil" TIMESTAMPTZ(3),
ADD COLUMN     "progressDone" INTEGER,
ADD COLUMN     "progressTotal" INTEGER;

-- CreateIndex
CREATE INDEX "Replay_status_leaseUntil_idx" ON "Replay"("status", "leaseUntil");

-- CreateTable
CREATE TABLE "LiveCall" (
    "id" TEXT NOT NULL,
    "replayId" TEXT NOT NULL,
    "entryId" TEXT NOT NULL,
    "owner" TEXT,
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LiveCall_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "LiveCall_replayId_entryId_key" ON "LiveCall"("replayId", "entryId");

-- AddForeignKey
ALTER TABLE "LiveCall" ADD CONSTRAINT "LiveCall_replayId_fkey" FOREIGN KEY ("replayId") REFERENCES "Replay"("id") ON DELETE CASCADE ON UPDATE CASCADE;
