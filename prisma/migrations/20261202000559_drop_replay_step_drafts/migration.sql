-- DropForeignKey
ALTER TABLE "ReplayStepDraft" DROP CONSTRAINT "ReplayStepDraft_replayId_fkey";

-- DropTable
DROP TABLE "ReplayStepDraft";
