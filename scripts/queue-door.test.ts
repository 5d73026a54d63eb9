import { describe, expect, it } from "vitest";
import { queueDoorViolations, repositoryQueueDoorViolations } from "./queue-door";

describe("the one door for background work", () => {
  it("refuses an adapter that enqueues, and lib/jobs importing lib/server", () => {
    expect(
      queueDoorViolations(
        "app/api/v1/replays/route.ts",
        [
          'import { enqueue } from "@/lib/jobs/runtime";',
          "await enqueue([started.id]);",
          "await queue.enqueueReplays([started.id]);",
        ].join("\n"),
      ),
    ).toEqual([
      "app/api/v1/replays/route.ts:1: imports enqueue: call the operation, which queues its work",
      "app/api/v1/replays/route.ts:2: calls enqueue(): call the operation, which queues its work",
      "app/api/v1/replays/route.ts:3: uses .enqueueReplays: call the operation, which queues its work",
    ]);
    expect(
      queueDoorViolations(
        "lib/jobs/queue.ts",
        [
          'import { runQueuedReplay } from "@/lib/server/replays";',
          'import type { JobQueue } from "../server/job-queue";',
          'const m = await import("@/lib/server/investigations");',
        ].join("\n"),
      ),
    ).toEqual([
      "lib/jobs/queue.ts:1: lib/jobs imports @/lib/server/replays: the queue is handed its job handlers when it starts",
      "lib/jobs/queue.ts:2: lib/jobs imports ../server/job-queue: the queue is handed its job handlers when it starts",
      "lib/jobs/queue.ts:3: lib/jobs imports @/lib/server/investigations: the queue is handed its job handlers when it starts",
    ]);
  });

  it("lets lib/server and lib/jobs enqueue, and a stream controller enqueue its chunks", () => {
    expect(queueDoorViolations("lib/server/replays.ts", "await queue.enqueueReplays(ids);")).toEqual([]);
    expect(queueDoorViolations("lib/jobs/queue.ts", "await enqueue(ids);")).toEqual([]);
    expect(queueDoorViolations("lib/http/stream.ts", "controller.enqueue(encoder.encode(text));")).toEqual([]);
    expect(
      queueDoorViolations("lib/jobs/jobs.db.test.ts", 'import { startReplay } from "@/lib/server/replays";'),
    ).toEqual([]);
  });

  it("holds in the repository", { timeout: 60_000 }, () => {
    expect(repositoryQueueDoorViolations()).toEqual([]);
  });
});
