-- Datasets: a named, frozen list of sessions, each member signed by who added it and when. An experiment may take
-- its cohort from one, and keeps its members (its replays) and the dataset's name when the dataset is deleted.
CREATE TABLE "Dataset" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdBy" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Dataset_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "DatasetMember" (
    "datasetId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "addedBy" TEXT NOT NULL,
    "addedById" TEXT,
    "addedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DatasetMember_pkey" PRIMARY KEY ("datasetId","sessionId")
);

-- CreateIndex
CREATE INDEX "Dataset_createdAt_id_idx" ON "Dataset"("createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "DatasetMember_datasetId_addedAt_sessionId_idx" ON "DatasetMember"("datasetId", "addedAt", "sessionId");

-- CreateIndex
CREATE INDEX "DatasetMember_sessionId_idx" ON "DatasetMember"("sessionId");

-- AddForeignKey
ALTER TABLE "DatasetMember" ADD CONSTRAINT "DatasetMember_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DatasetMember" ADD CONSTRAINT "DatasetMember_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An experiment's dataset, and its name kept for when the dataset is deleted.
ALTER TABLE "Experiment" ADD COLUMN "datasetId" TEXT;
ALTER TABLE "Experiment" ADD COLUMN "datasetName" TEXT;

-- CreateIndex
CREATE INDEX "Experiment_datasetId_idx" ON "Experiment"("datasetId");

-- AddForeignKey
ALTER TABLE "Experiment" ADD CONSTRAINT "Experiment_datasetId_fkey" FOREIGN KEY ("datasetId") REFERENCES "Dataset"("id") ON DELETE SET NULL ON UPDATE CASCADE;
