-- Review queues: sessions handed to reviewers, each completed by an annotation.
CREATE TABLE "ReviewQueue" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "labels" TEXT[],
    "askScore" BOOLEAN NOT NULL DEFAULT false,
    "createdBy" TEXT NOT NULL,
    "createdById" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ReviewQueue_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReviewItem" (
    "id" TEXT NOT NULL,
    "position" SERIAL NOT NULL,
    "queueId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "assigneeId" TEXT,
    "assignee" TEXT,
    "addedBy" TEXT NOT NULL,
    "addedById" TEXT,
    "addedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completedBy" TEXT,
    "completedById" TEXT,
    "completedAt" TIMESTAMPTZ(3),
    "annotationId" TEXT,

    CONSTRAINT "ReviewItem_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ReviewQueue_createdAt_idx" ON "ReviewQueue"("createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ReviewItem_queueId_sessionId_key" ON "ReviewItem"("queueId", "sessionId");

-- CreateIndex
CREATE INDEX "ReviewItem_queueId_status_position_idx" ON "ReviewItem"("queueId", "status", "position");

-- CreateIndex
CREATE INDEX "ReviewItem_sessionId_idx" ON "ReviewItem"("sessionId");

-- CreateIndex
CREATE INDEX "ReviewItem_annotationId_idx" ON "ReviewItem"("annotationId");

-- AddForeignKey
ALTER TABLE "ReviewItem" ADD CONSTRAINT "ReviewItem_queueId_fkey" FOREIGN KEY ("queueId") REFERENCES "ReviewQueue"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ReviewItem" ADD CONSTRAINT "ReviewItem_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ReviewItem" ADD CONSTRAINT "ReviewItem_annotationId_fkey" FOREIGN KEY ("annotationId") REFERENCES "Annotation"("id") ON DELETE SET NULL ON UPDATE CASCADE;
