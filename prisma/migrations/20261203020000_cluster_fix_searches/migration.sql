-- The smallest fixing change over a cluster as a durable job: the search, its probes as they finish, its lease
-- (a worker killed mid-search is replaced and goes on from the stored probes) and its outcome.
CREATE TABLE "ClusterFixSearch" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "params" JSONB NOT NULL,
    "changes" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "probes" JSONB NOT NULL DEFAULT '[]',
    "result" JSONB,
    "error" JSONB,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMPTZ(3),
    "finishedAt" TIMESTAMPTZ(3),
    "leaseOwner" TEXT,
    "leaseUntil" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "pendingProbe" JSONB,

    CONSTRAINT "ClusterFixSearch_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ClusterFixSearch_clusterId_createdAt_idx" ON "ClusterFixSearch"("clusterId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "ClusterFixSearch_status_leaseUntil_idx" ON "ClusterFixSearch"("status", "leaseUntil");

-- AddForeignKey
ALTER TABLE "ClusterFixSearch" ADD CONSTRAINT "ClusterFixSearch_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "FailureCluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
