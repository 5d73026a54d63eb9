-- Connectors of more kinds than Langfuse: LangSmith names a project instead of a public key.
-- AlterTable
ALTER TABLE "Connector" ALTER COLUMN "publicKey" DROP NOT NULL;
ALTER TABLE "Connector" ADD COLUMN "project" TEXT;
