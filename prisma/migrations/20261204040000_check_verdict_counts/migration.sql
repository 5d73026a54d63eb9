-- CreateTable
CREATE TABLE "CheckVerdictCount" (
    "agentId" TEXT NOT NULL,
    "checkId" TEXT NOT NULL,
    "agentVersionId" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "passed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "firstSeen" TIMESTAMPTZ(3),

    CONSTRAINT "CheckVerdictCount_pkey" PRIMARY KEY ("agentId","checkId","agentVersionId","day")
);

-- An agent's pass and fail verdicts per online check, verdict version and UTC day of the judged session's start
-- (else its import), with the first seen of each, kept by the database as verdicts are written, judged again and
-- removed and as their sessions move in time or go, so the regressions read never groups an agent's verdicts.
-- Counted are the verdicts the per-check pass rates count: outcome pass or fail, whatever their session.
-- The bodies are escape strings with each semicolon written as \073: the migration runner splits scripts at them.
-- Decrements only update (never insert). A removal at or before the first seen works it out again from the day's
-- counted verdicts but those of the session `gone` (a row still visible to a BEFORE DELETE trigger).
CREATE FUNCTION check_verdict_count_add(a text, c text, v text, seen timestamptz, d_passed int, d_failed int,
  gone text)
RETURNS void LANGUAGE plpgsql AS E'
DECLARE
  k date := (seen AT TIME ZONE \'UTC\')::date\073
  lo timestamptz := k::timestamp AT TIME ZONE \'UTC\'\073
  hi timestamptz := (k + 1)::timestamp AT TIME ZONE \'UTC\'\073
BEGIN
  IF d_passed + d_failed > 0 THEN
    INSERT INTO "CheckVerdictCount" AS n ("agentId", "checkId", "agentVersionId", "day", "passed", "failed",
      "firstSeen")
    VALUES (a, c, v, k, d_passed, d_failed, seen)
    ON CONFLICT ("agentId", "checkId", "agentVersionId", "day") DO UPDATE
      SET "passed" = n."passed" + EXCLUDED."passed",
          "failed" = n."failed" + EXCLUDED."failed",
          "firstSeen" = LEAST(n."firstSeen", EXCLUDED."firstSeen")\073
    RETURN\073
  END IF\073
  UPDATE "CheckVerdictCount" n SET "passed" = n."passed" + d_passed, "failed" = n."failed" + d_failed,
    "firstSeen" = CASE WHEN n."firstSeen" < seen THEN n."firstSeen" ELSE (
      SELECT min(coalesce(s."startedAt", s."createdAt"))
      FROM "SessionCheckVerdict" x JOIN "Session" s ON s.id = x."sessionId"
      WHERE x."checkId" = c AND x."agentId" = a AND x."agentVersionId" = v AND x.outcome IN (\'pass\', \'fail\')
        AND coalesce(s."startedAt", s."createdAt") >= lo AND coalesce(s."startedAt", s."createdAt") < hi
        AND s.id <> coalesce(gone, \'\')) END
  WHERE n."agentId" = a AND n."checkId" = c AND n."agentVersionId" = v AND n."day" = k\073
END
';

-- A verdict written, judged again or removed: its old count out and its new one in, at its session's time. A
-- verdict removed with its session (the cascade after the session's delete) finds no session: that session's
-- delete took its verdicts out before.
CREATE FUNCTION check_verdict_count_verdicts() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  t timestamptz\073
BEGIN
  IF TG_OP IN (\'UPDATE\', \'DELETE\') AND OLD.outcome IN (\'pass\', \'fail\') THEN
    SELECT coalesce("startedAt", "createdAt") INTO t FROM "Session" WHERE id = OLD."sessionId"\073
    IF FOUND THEN
      PERFORM check_verdict_count_add(OLD."agentId", OLD."checkId", OLD."agentVersionId", t,
        -(OLD.outcome = \'pass\')::int, -(OLD.outcome = \'fail\')::int, NULL)\073
    END IF\073
  END IF\073
  IF TG_OP IN (\'INSERT\', \'UPDATE\') AND NEW.outcome IN (\'pass\', \'fail\') THEN
    SELECT coalesce("startedAt", "createdAt") INTO t FROM "Session" WHERE id = NEW."sessionId"\073
    IF FOUND THEN
      PERFORM check_verdict_count_add(NEW."agentId", NEW."checkId", NEW."agentVersionId", t,
        (NEW.outcome = \'pass\')::int, (NEW.outcome = \'fail\')::int, NULL)\073
    END IF\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER check_verdict_count_written
AFTER INSERT OR DELETE ON "SessionCheckVerdict"
FOR EACH ROW EXECUTE FUNCTION check_verdict_count_verdicts();

CREATE TRIGGER check_verdict_count_judged_again
AFTER UPDATE ON "SessionCheckVerdict"
FOR EACH ROW
WHEN (OLD.outcome IS DISTINCT FROM NEW.outcome OR OLD."agentId" IS DISTINCT FROM NEW."agentId"
  OR OLD."checkId" IS DISTINCT FROM NEW."checkId" OR OLD."agentVersionId" IS DISTINCT FROM NEW."agentVersionId"
  OR OLD."sessionId" IS DISTINCT FROM NEW."sessionId")
EXECUTE FUNCTION check_verdict_count_verdicts();

-- A session whose start or import time moves takes its verdicts to their new day, and one deleted takes them out
-- before it goes (while they and it are still there to read).
CREATE FUNCTION check_verdict_count_sessions() RETURNS trigger LANGUAGE plpgsql AS E'
DECLARE
  r record\073
BEGIN
  FOR r IN SELECT x."agentId", x."checkId", x."agentVersionId", x.outcome FROM "SessionCheckVerdict" x
    WHERE x."sessionId" = OLD.id AND x.outcome IN (\'pass\', \'fail\') ORDER BY x."checkId" LOOP
    PERFORM check_verdict_count_add(r."agentId", r."checkId", r."agentVersionId",
      coalesce(OLD."startedAt", OLD."createdAt"), -(r.outcome = \'pass\')::int, -(r.outcome = \'fail\')::int,
      CASE WHEN TG_OP = \'DELETE\' THEN OLD.id END)\073
    IF TG_OP = \'UPDATE\' THEN
      PERFORM check_verdict_count_add(r."agentId", r."checkId", r."agentVersionId",
        coalesce(NEW."startedAt", NEW."createdAt"), (r.outcome = \'pass\')::int, (r.outcome = \'fail\')::int, NULL)\073
    END IF\073
  END LOOP\073
  IF TG_OP = \'DELETE\' THEN
    RETURN OLD\073
  END IF\073
  RETURN NULL\073
END
';

CREATE TRIGGER check_verdict_count_moved
AFTER UPDATE OF "startedAt", "createdAt" ON "Session"
FOR EACH ROW
WHEN (coalesce(OLD."startedAt", OLD."createdAt") IS DISTINCT FROM coalesce(NEW."startedAt", NEW."createdAt"))
EXECUTE FUNCTION check_verdict_count_sessions();

CREATE TRIGGER check_verdict_count_session_deleted
BEFORE DELETE ON "Session"
FOR EACH ROW EXECUTE FUNCTION check_verdict_count_sessions();

-- The counts of the verdicts stored before.
INSERT INTO "CheckVerdictCount" ("agentId", "checkId", "agentVersionId", "day", "passed", "failed", "firstSeen")
SELECT v."agentId", v."checkId", v."agentVersionId", (coalesce(s."startedAt", s."createdAt") AT TIME ZONE 'UTC')::date,
  count(*) FILTER (WHERE v.outcome = 'pass'), count(*) FILTER (WHERE v.outcome = 'fail'),
  min(coalesce(s."startedAt", s."createdAt"))
FROM "SessionCheckVerdict" v JOIN "Session" s ON s.id = v."sessionId"
WHERE v.outcome IN ('pass', 'fail')
GROUP BY 1, 2, 3, 4;
