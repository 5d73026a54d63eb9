-- Investigations get the replays' lease: a worker that stops renewing it (killed) is replaced after it
-- runs out, and the investigation goes on from the probes it finished.
ALTER TABLE "Investigation" ADD COLUMN "leaseOwner" TEXT;
ALTER TABLE "Investigation" ADD COLUMN "leaseUntil" TIMESTAMPTZ(3);
ALTER TABLE "Investigation" ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0;
-- The probe being run: its key and the replays created for it (written with them), so a run that takes
-- over waits for those replays instead of creating others.
ALTER TABLE "Investigation" ADD COLUMN "pendingProbe" JSONB;
CREATE INDEX "Investigation_status_leaseUntil_idx" ON "Investigation"("status", "leaseUntil");
