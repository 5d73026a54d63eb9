-- Connectors: platforms whose recorded traces Branchpoint pulls (Langfuse first), and each pull, run as a job
-- that goes on from its cursor after a crash.
-- CreateTable
CREATE TABLE "Connector" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "baseUrl" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "secretKeyEnv" TEXT NOT NULL,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Connector_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ConnectorPull" (
    "id" TEXT NOT NULL,
    "connectorId" TEXT NOT NULL,
    "filter" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "cursor" JSONB,
    "progress" JSONB NOT NULL DEFAULT '{}',
    "refusals" JSONB NOT NULL DEFAULT '[]',
    "error" JSONB,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMPTZ(3),
    "leaseOwner" TEXT,
    "leaseUntil" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ConnectorPull_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Connector_name_key" ON "Connector"("name");

-- CreateIndex
CREATE INDEX "ConnectorPull_connectorId_createdAt_idx" ON "ConnectorPull"("connectorId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "ConnectorPull_status_leaseUntil_idx" ON "ConnectorPull"("status", "leaseUntil");

-- AddForeignKey
ALTER TABLE "ConnectorPull" ADD CONSTRAINT "ConnectorPull_connectorId_fkey" FOREIGN KEY ("connectorId") REFERENCES "Connector"("id") ON DELETE CASCADE ON UPDATE CASCADE;
