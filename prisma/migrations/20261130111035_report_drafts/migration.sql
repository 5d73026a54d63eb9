-- AlterTable
ALTER TABLE "Report" ADD COLUMN     "publishedAt" TIMESTAMPTZ(3),
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'draft',
ADD COLUMN     "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- Reports written before drafts existed were immutable from creation: they are published.
UPDATE "Report" SET "status" = 'published', "publishedAt" = "createdAt", "updatedAt" = "createdAt";
