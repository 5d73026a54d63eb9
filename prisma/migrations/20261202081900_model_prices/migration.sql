-- AlterTable
ALTER TABLE "Session" ADD COLUMN     "costMicros" BIGINT,
ADD COLUMN     "costSource" TEXT;

-- CreateTable
CREATE TABLE "ModelPrice" (
    "id" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "match" TEXT NOT NULL DEFAULT 'prefix',
    "validFrom" TIMESTAMPTZ(3) NOT NULL,
    "inputMicros" INTEGER NOT NULL,
    "outputMicros" INTEGER NOT NULL,
    "cachedInputMicros" INTEGER,
    "origin" TEXT NOT NULL DEFAULT 'admin',
    "createdById" TEXT,
    "createdByName" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ModelPrice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ModelPrice_model_match_validFrom_key" ON "ModelPrice"("model", "match", "validFrom");

-- CreateIndex
CREATE INDEX "Session_costSource_idx" ON "Session"("costSource");
