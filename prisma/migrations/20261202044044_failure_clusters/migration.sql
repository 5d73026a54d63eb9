-- CreateTable
CREATE TABLE "FailureCluster" (
    "id" TEXT NOT NULL,
    "agentId" TEXT NOT NULL,
    "signatureHash" TEXT NOT NULL,
    "check" TEXT NOT NULL DEFAULT '',
    "step" TEXT NOT NULL,
    "errorType" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "label" TEXT,
    "size" INTEGER NOT NULL DEFAULT 0,
    "firstSeen" TIMESTAMPTZ(3),
    "lastSeen" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "FailureCluster_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ClusterRoute" (
    "agentId" TEXT NOT NULL,
    "signatureHash" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,

    CONSTRAINT "ClusterRoute_pkey" PRIMARY KEY ("agentId","signatureHash")
);

-- CreateTable
CREATE TABLE "ClusterMember" (
    "sessionId" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "signatureHash" TEXT NOT NULL,
    "agentVersionId" TEXT NOT NULL,
    "seenAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ClusterMember_pkey" PRIMARY KEY ("sessionId")
);

-- CreateIndex
CREATE INDEX "FailureCluster_agentId_size_idx" ON "FailureCluster"("agentId", "size" DESC);

-- CreateIndex
CREATE INDEX "ClusterRoute_clusterId_idx" ON "ClusterRoute"("clusterId");

-- CreateIndex
CREATE INDEX "ClusterMember_clusterId_seenAt_idx" ON "ClusterMember"("clusterId", "seenAt" DESC);

-- CreateIndex
CREATE INDEX "ClusterMember_clusterId_agentVersionId_idx" ON "ClusterMember"("clusterId", "agentVersionId");

-- AddForeignKey
ALTER TABLE "FailureCluster" ADD CONSTRAINT "FailureCluster_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClusterRoute" ADD CONSTRAINT "ClusterRoute_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClusterMember" ADD CONSTRAINT "ClusterMember_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClusterMember" ADD CONSTRAINT "ClusterMember_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "FailureCluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A cluster's size and first and last seen, kept by the database as members come, go and move (merge, split,
-- a session deleted with its member row by cascade), so no page counts members and no writer can forget.
-- The body is an escape string with each semicolon written as \073: the migration runner splits scripts at them.
CREATE FUNCTION failure_cluster_members() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_OP = \'DELETE\' OR (TG_OP = \'UPDATE\' AND OLD."clusterId" <> NEW."clusterId") THEN
    UPDATE "FailureCluster" SET "size" = "size" - 1 WHERE "id" = OLD."clusterId"\073
  END IF\073
  IF TG_OP = \'INSERT\' OR (TG_OP = \'UPDATE\' AND OLD."clusterId" <> NEW."clusterId") THEN
    UPDATE "FailureCluster"
    SET "size" = "size" + 1,
        "firstSeen" = LEAST("firstSeen", NEW."seenAt"),
        "lastSeen" = GREATEST("lastSeen", NEW."seenAt")
    WHERE "id" = NEW."clusterId"\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER failure_cluster_members
AFTER INSERT OR UPDATE OR DELETE ON "ClusterMember"
FOR EACH ROW EXECUTE FUNCTION failure_cluster_members();
