-- CreateTable
CREATE TABLE "AgentDayPassCount" (
    "agentId" TEXT NOT NULL,
    "agentVersionId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "sessions" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "firstSeen" TIMESTAMPTZ(3),

    CONSTRAINT "AgentDayPassCount_pkey" PRIMARY KEY ("agentId","agentVersionId","day")
);

-- CreateTable
CREATE TABLE "ClusterVersionCount" (
    "clusterId" TEXT NOT NULL,
    "agentVersionId" TEXT NOT NULL,
    "sessions" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "ClusterVersionCount_pkey" PRIMARY KEY ("clusterId","agentVersionId")
);

-- AddForeignKey
ALTER TABLE "AgentDayPassCount" ADD CONSTRAINT "AgentDayPassCount_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AgentDayPassCount" ADD CONSTRAINT "AgentDayPassCount_agentVersionId_fkey" FOREIGN KEY ("agentVersionId") REFERENCES "AgentVersion"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClusterVersionCount" ADD CONSTRAINT "ClusterVersionCount_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "FailureCluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- An agent's sessions and failed sessions per version and UTC day (of the start, else the import), with the
-- first seen of each, kept by the database as sessions come, go, are superseded or move in time and as their
-- cluster memberships come and go, so the regressions read never groups an agent's sessions. Counted are the
-- sessions the pass rates count: not replays, not superseded. A session is failed while it has a member row.
-- The bodies are escape strings with each semicolon written as \073: the migration runner splits scripts at them.
-- Decrements only update (never insert), and none is made for an agent or version being deleted (its count rows
-- go by cascade, and updating one twice in the transaction would have its foreign key checked against a gone row).
-- A removal at or before the first seen works it out again from the day's counted sessions but `gone` (a row
-- still visible to a BEFORE DELETE trigger).
CREATE FUNCTION agent_day_pass_count_add(a text, v text, seen timestamptz, d_sessions int, d_failed int, gone text)
RETURNS void LANGUAGE plpgsql AS E'
DECLARE
  k date := (seen AT TIME ZONE \'UTC\')::date\073
  lo timestamptz := k::timestamp AT TIME ZONE \'UTC\'\073
  hi timestamptz := (k + 1)::timestamp AT TIME ZONE \'UTC\'\073
BEGIN
  IF d_sessions > 0 THEN
    INSERT INTO "AgentDayPassCount" AS c ("agentId", "agentVersionId", "day", "sessions", "failed", "firstSeen")
    VALUES (a, v, k, d_sessions, d_failed, seen)
    ON CONFLICT ("agentId", "agentVersionId", "day") DO UPDATE
      SET "sessions" = c."sessions" + EXCLUDED."sessions",
          "failed" = c."failed" + EXCLUDED."failed",
          "firstSeen" = LEAST(c."firstSeen", EXCLUDED."firstSeen")\073
    RETURN\073
  END IF\073
  IF NOT EXISTS (SELECT 1 FROM "Agent" WHERE id = a) OR NOT EXISTS (SELECT 1 FROM "AgentVersion" WHERE id = v) THEN
    RETURN\073
  END IF\073
  UPDATE "AgentDayPassCount" c SET "sessions" = c."sessions" + d_sessions, "failed" = c."failed" + d_failed
  WHERE c."agentId" = a AND c."agentVersionId" = v AND c."day" = k\073
  IF d_sessions < 0 THEN
    UPDATE "AgentDayPassCount" c SET "firstSeen" = LEAST(
      (SELECT min(s."startedAt") FROM "Session" s
        WHERE s."agentId" = a AND s."startedAt" >= lo AND s."startedAt" < hi AND s."agentVersionId" = v
          AND NOT s."isReplay" AND NOT (s.metadata ? \'supersededBy\') AND s.id <> coalesce(gone, \'\')),
      (SELECT min(s."createdAt") FROM "Session" s
        WHERE s."agentId" = a AND s."startedAt" IS NULL AND s."createdAt" >= lo AND s."createdAt" < hi
          AND s."agentVersionId" = v AND NOT s."isReplay" AND NOT (s.metadata ? \'supersededBy\')
          AND s.id <> coalesce(gone, \'\')))
    WHERE c."agentId" = a AND c."agentVersionId" = v AND c."day" = k AND c."firstSeen" >= seen\073
  END IF\073
END
';

CREATE FUNCTION agent_day_pass_count_sessions() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  IF TG_OP IN (\'UPDATE\', \'DELETE\') AND NOT OLD."isReplay" AND NOT (OLD.metadata ? \'supersededBy\') THEN
    PERFORM agent_day_pass_count_add(OLD."agentId", OLD."agentVersionId", coalesce(OLD."startedAt", OLD."createdAt"),
      -1, -(EXISTS (SELECT 1 FROM "ClusterMember" m WHERE m."sessionId" = OLD.id))::int,
      CASE WHEN TG_OP = \'DELETE\' THEN OLD.id END)\073
  END IF\073
  IF TG_OP = \'UPDATE\' AND NOT NEW."isReplay" AND NOT (NEW.metadata ? \'supersededBy\') THEN
    PERFORM agent_day_pass_count_add(NEW."agentId", NEW."agentVersionId", coalesce(NEW."startedAt", NEW."createdAt"),
      1, (EXISTS (SELECT 1 FROM "ClusterMember" m WHERE m."sessionId" = NEW.id))::int, NULL)\073
  END IF\073
  IF TG_OP = \'DELETE\' THEN
    RETURN OLD\073
  END IF\073
  RETURN NULL\073
END
';

-- Inserted rows once per statement: one upsert per version and day, taken in key order (two imports at once
-- lock the count rows they share in the same order). Changed rows after the fact. A deleted one before, while its
-- member row is still there (the cascade that removes that row runs after the delete, and finds no session to
-- count it against).
CREATE FUNCTION agent_day_pass_count_inserted() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO "AgentDayPassCount" AS c ("agentId", "agentVersionId", "day", "sessions", "failed", "firstSeen")
  SELECT n."agentId", n."agentVersionId", (coalesce(n."startedAt", n."createdAt") AT TIME ZONE \'UTC\')::date,
    count(*), count(m."sessionId"), min(coalesce(n."startedAt", n."createdAt"))
  FROM inserted_sessions n LEFT JOIN "ClusterMember" m ON m."sessionId" = n.id
  WHERE NOT n."isReplay" AND NOT (n.metadata ? \'supersededBy\')
  GROUP BY 1, 2, 3
  ORDER BY 1, 2, 3
  ON CONFLICT ("agentId", "agentVersionId", "day") DO UPDATE
    SET "sessions" = c."sessions" + EXCLUDED."sessions",
        "failed" = c."failed" + EXCLUDED."failed",
        "firstSeen" = LEAST(c."firstSeen", EXCLUDED."firstSeen")\073
  RETURN NULL\073
END
';

CREATE TRIGGER agent_day_pass_count_inserted
AFTER INSERT ON "Session"
REFERENCING NEW TABLE AS inserted_sessions
FOR EACH STATEMENT EXECUTE FUNCTION agent_day_pass_count_inserted();

CREATE TRIGGER agent_day_pass_count_changed
AFTER UPDATE OF "agentId", "agentVersionId", "startedAt", "createdAt", "isReplay", "metadata" ON "Session"
FOR EACH ROW
WHEN (OLD."agentId" IS DISTINCT FROM NEW."agentId" OR OLD."agentVersionId" IS DISTINCT FROM NEW."agentVersionId"
  OR OLD."startedAt" IS DISTINCT FROM NEW."startedAt" OR OLD."createdAt" IS DISTINCT FROM NEW."createdAt"
  OR OLD."isReplay" IS DISTINCT FROM NEW."isReplay"
  OR (OLD.metadata ? 'supersededBy') IS DISTINCT FROM (NEW.metadata ? 'supersededBy'))
EXECUTE FUNCTION agent_day_pass_count_sessions();

CREATE TRIGGER agent_day_pass_count_deleted
BEFORE DELETE ON "Session"
FOR EACH ROW EXECUTE FUNCTION agent_day_pass_count_sessions();

-- A member row's coming and going counts its session failed or not (when the session is counted), and its
-- cluster's sessions per agent version (the clusters that grew between two versions) follow it as it comes,
-- goes and moves (merge, split, a new signature, a cascade).
CREATE FUNCTION pass_count_members() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  s record\073
BEGIN
  IF TG_OP = \'DELETE\' OR (TG_OP = \'UPDATE\'
      AND (OLD."clusterId" <> NEW."clusterId" OR OLD."agentVersionId" <> NEW."agentVersionId")) THEN
    UPDATE "ClusterVersionCount" SET "sessions" = "sessions" - 1
    WHERE "clusterId" = OLD."clusterId" AND "agentVersionId" = OLD."agentVersionId"
      AND EXISTS (SELECT 1 FROM "FailureCluster" WHERE id = OLD."clusterId")\073
  END IF\073
  IF TG_OP = \'INSERT\' OR (TG_OP = \'UPDATE\'
      AND (OLD."clusterId" <> NEW."clusterId" OR OLD."agentVersionId" <> NEW."agentVersionId")) THEN
    INSERT INTO "ClusterVersionCount" AS c ("clusterId", "agentVersionId", "sessions")
    VALUES (NEW."clusterId", NEW."agentVersionId", 1)
    ON CONFLICT ("clusterId", "agentVersionId") DO UPDATE SET "sessions" = c."sessions" + 1\073
  END IF\073
  IF TG_OP IN (\'INSERT\', \'DELETE\') THEN
    SELECT "agentId", "agentVersionId", coalesce("startedAt", "createdAt") AS seen INTO s
    FROM "Session"
    WHERE id = CASE WHEN TG_OP = \'INSERT\' THEN NEW."sessionId" ELSE OLD."sessionId" END
      AND NOT "isReplay" AND NOT (metadata ? \'supersededBy\')\073
    IF FOUND THEN
      PERFORM agent_day_pass_count_add(s."agentId", s."agentVersionId", s.seen, 0,
        CASE WHEN TG_OP = \'INSERT\' THEN 1 ELSE -1 END, NULL)\073
    END IF\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER pass_count_members
AFTER INSERT OR UPDATE OR DELETE ON "ClusterMember"
FOR EACH ROW EXECUTE FUNCTION pass_count_members();

-- The counts of the rows stored before.
INSERT INTO "AgentDayPassCount" ("agentId", "agentVersionId", "day", "sessions", "failed", "firstSeen")
SELECT s."agentId", s."agentVersionId", (coalesce(s."startedAt", s."createdAt") AT TIME ZONE 'UTC')::date,
  count(*), count(m."sessionId"), min(coalesce(s."startedAt", s."createdAt"))
FROM "Session" s LEFT JOIN "ClusterMember" m ON m."sessionId" = s.id
WHERE NOT s."isReplay" AND NOT (s.metadata ? 'supersededBy')
GROUP BY 1, 2, 3;

INSERT INTO "ClusterVersionCount" ("clusterId", "agentVersionId", "sessions")
SELECT "clusterId", "agentVersionId", count(*) FROM "ClusterMember" GROUP BY 1, 2;
