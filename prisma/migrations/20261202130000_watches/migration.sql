-- Watches: a condition on an agent's failures evaluated as sessions arrive, its triggers (once per key, so one
-- never fires twice) and each webhook attempt.
-- CreateTable
CREATE TABLE "Watch" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "condition" JSONB NOT NULL,
    "actions" JSONB NOT NULL,
    "costBound" JSONB,
    "windowSeconds" INTEGER NOT NULL,
    "lastEvaluatedAt" TIMESTAMPTZ(3),
    "state" JSONB NOT NULL DEFAULT '{}',
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Watch_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WatchTrigger" (
    "id" TEXT NOT NULL,
    "watchId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "facts" JSONB NOT NULL,
    "investigation" JSONB,
    "firedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WatchTrigger_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WatchDelivery" (
    "id" TEXT NOT NULL,
    "watchId" TEXT NOT NULL,
    "triggerId" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "httpStatus" INTEGER,
    "error" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "WatchDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Watch_agentId_idx" ON "Watch"("agentId");

-- CreateIndex
CREATE UNIQUE INDEX "WatchTrigger_watchId_key_key" ON "WatchTrigger"("watchId", "key");

-- CreateIndex
CREATE INDEX "WatchTrigger_watchId_firedAt_idx" ON "WatchTrigger"("watchId", "firedAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "WatchDelivery_triggerId_attempt_key" ON "WatchDelivery"("triggerId", "attempt");

-- CreateIndex
CREATE INDEX "WatchDelivery_watchId_at_idx" ON "WatchDelivery"("watchId", "at" DESC);

-- AddForeignKey
ALTER TABLE "Watch" ADD CONSTRAINT "Watch_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WatchTrigger" ADD CONSTRAINT "WatchTrigger_watchId_fkey" FOREIGN KEY ("watchId") REFERENCES "Watch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WatchDelivery" ADD CONSTRAINT "WatchDelivery_watchId_fkey" FOREIGN KEY ("watchId") REFERENCES "Watch"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "WatchDelivery" ADD CONSTRAINT "WatchDelivery_triggerId_fkey" FOREIGN KEY ("triggerId") REFERENCES "WatchTrigger"("id") ON DELETE CASCADE ON UPDATE CASCADE;
