-- A counter bumped each time a run's result replaces a replay's steps, and by nothing else: a
-- document streamed a window at a time checks it, where the row's updatedAt also moves with a
-- running replay's progress writes.
ALTER TABLE "Replay" ADD COLUMN "stepsVersion" INTEGER NOT NULL DEFAULT 0;
