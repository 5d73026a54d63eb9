-- An agent's overview over time reads one agent's runs in a range of start times: without this index it
-- would read every session of the agent through ("agentId", "createdAt") and filter them by start time.
-- Runs without a start time are found by their creation time, through that existing index.
CREATE INDEX "Session_agentId_startedAt_idx" ON "Session"("agentId", "startedAt");
