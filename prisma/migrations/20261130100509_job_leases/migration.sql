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
