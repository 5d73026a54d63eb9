-- Annotations: a person's label, score and comment on a session or one of its steps, signed by its author.
CREATE TABLE "Annotation" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "seq" INTEGER,
    "label" TEXT,
    "score" DOUBLE PRECISION,
    "comment" TEXT,
    "author" TEXT NOT NULL,
    "authorId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Annotation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Annotation_sessionId_createdAt_idx" ON "Annotation"("sessionId", "createdAt");

-- CreateIndex
CREATE INDEX "Annotation_label_sessionId_idx" ON "Annotation"("label", "sessionId");

-- AddForeignKey
ALTER TABLE "Annotation" ADD CONSTRAINT "Annotation_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;
