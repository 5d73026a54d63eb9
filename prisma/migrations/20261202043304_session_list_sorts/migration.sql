-- The session list sorts by start, cost, duration, errors and steps, both ways, ties by id: each order
-- is a range of one (column, id) index, read forwards or backwards, so a page costs its rows, not the
-- table. Sessions without a start or duration are read as a second range (column IS NULL, by id).
-- CreateIndex
CREATE INDEX "Session_startedAt_id_idx" ON "Session"("startedAt", "id");

-- CreateIndex
CREATE INDEX "Session_costUsd_id_idx" ON "Session"("costUsd", "id");

-- CreateIndex
CREATE INDEX "Session_durationMs_id_idx" ON "Session"("durationMs", "id");

-- CreateIndex
CREATE INDEX "Session_errorCount_id_idx" ON "Session"("errorCount", "id");

-- CreateIndex
CREATE INDEX "Session_eventCount_id_idx" ON "Session"("eventCount", "id");
