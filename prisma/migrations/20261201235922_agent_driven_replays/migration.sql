-- AlterTable
ALTER TABLE "Replay" ADD COLUMN     "agentDriver" JSONB,
ADD COLUMN     "agentIdleTimeoutS" INTEGER,
ADD COLUMN     "agentSeenAt" TIMESTAMPTZ(3),
ADD COLUMN     "agentTokenHash" TEXT,
ADD COLUMN     "driver" TEXT NOT NULL DEFAULT 'server';

-- CreateIndex
CREATE UNIQUE INDEX "Replay_agentTokenHash_key" ON "Replay"("agentTokenHash");
