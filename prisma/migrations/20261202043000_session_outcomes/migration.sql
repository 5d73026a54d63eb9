-- A run's outcome (passed | failed | unknown) beside how its recording ended. Existing rows keep NULL
-- ("not worked out yet"): the rule lives in one TypeScript function (lib/sessions/outcome.ts), which
-- start-up applies to them, rather than a second copy of it here in SQL.
ALTER TABLE "Session" ADD COLUMN "outcome" TEXT,
ADD COLUMN "outcomeReason" TEXT,
ADD COLUMN "outcomeSeq" INTEGER,
-- The demo data loaded on a first start: only it may run on the built-in demo model (no import sets this).
ADD COLUMN "demo" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "Session_outcome_createdAt_idx" ON "Session"("outcome", "createdAt" DESC);

-- The demo data a first start loaded before this column existed (the same sources, by their ids).
UPDATE "Session" SET "demo" = true
WHERE "isReplay" = false AND ("format", "externalId") IN (
  ('openai-chat', 'tau-bench:airline:task-0:trial-0'),
  ('openai-chat', 'tau-bench:airline:task-1:trial-0'),
  ('openai-chat', 'tau-bench:airline:task-12:trial-0'),
  ('openai-chat', 'tau-bench:airline:task-13:trial-0'),
  ('openai-chat', 'tau-bench:airline:task-18:trial-0'),
  ('openai-chat', 'tau-bench:airline:task-33:trial-0'),
  ('openai-chat', 'tau-bench:airline:task-0:trial-3'),
  ('native', 'acme-reporting:thread_8d1e0f3a'),
  ('native', 'trailhead-support:conv_5f0b27c1'),
  ('native', 'harbor-pine-support:run_01JP6Q3M8Z4K2F7WQX1D9RBT5N')
);
