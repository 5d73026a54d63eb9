-- Fix a cluster: an experiment over an explicit list of sessions (a cluster's members and a control sample of
-- passing sessions), and the record that ties it to its cluster with how its members are judged.
ALTER TABLE "Experiment" ADD COLUMN "cohortKind" TEXT NOT NULL DEFAULT 'agent_version';

-- CreateTable
CREATE TABLE "ClusterFix" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "experimentId" TEXT NOT NULL,
    "judge" TEXT NOT NULL,
    "checkName" TEXT,
    "memberIds" JSONB NOT NULL,
    "controlIds" JSONB NOT NULL DEFAULT '[]',
    "sample" INTEGER,
    "controlSample" INTEGER NOT NULL DEFAULT 0,
    "seed" INTEGER NOT NULL,
    "createdBy" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClusterFix_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ClusterFix_experimentId_key" ON "ClusterFix"("experimentId");

-- CreateIndex
CREATE INDEX "ClusterFix_clusterId_createdAt_idx" ON "ClusterFix"("clusterId", "createdAt" DESC);

-- AddForeignKey
ALTER TABLE "ClusterFix" ADD CONSTRAINT "ClusterFix_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "FailureCluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClusterFix" ADD CONSTRAINT "ClusterFix_experimentId_fkey" FOREIGN KEY ("experimentId") REFERENCES "Experiment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
