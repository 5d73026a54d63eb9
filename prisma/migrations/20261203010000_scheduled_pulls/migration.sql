-- Scheduled connector pulls: a pull names its period and when the next pull of its schedule is due.
-- AlterTable
ALTER TABLE "ConnectorPull" ADD COLUMN     "everyMinutes" INTEGER,
ADD COLUMN     "nextRunAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "ConnectorPull_nextRunAt_idx" ON "ConnectorPull"("nextRunAt");
