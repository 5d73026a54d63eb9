-- Model inputs stored once: a model call keeps the messages it adds and points at the call it extends.
-- Existing rows stay whole (a null pointer means "stored whole") and are compacted by the app at start.
ALTER TABLE "Event" ADD COLUMN "inputPrefixSeq" INTEGER,
ADD COLUMN "inputPrefixCount" INTEGER,
ADD COLUMN "inputDigest" TEXT;

ALTER TABLE "ReplayStep" ADD COLUMN "inputPrefixIdx" INTEGER,
ADD COLUMN "inputPrefixCount" INTEGER,
ADD COLUMN "inputDigest" TEXT;
