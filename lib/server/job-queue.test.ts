import { afterEach, describe, expect, it } from "vitest";
import { jobQueueFor, plugJobQueue, type JobQueue } from "./job-queue";

const queue = (name: string): JobQueue & { name: string } => ({
  name,
  enqueueReplays: async () => undefined,
  enqueueInvestigations: async () => undefined,
});

describe("the queue the operations put work on", () => {
  afterEach(() => plugJobQueue(null));

  it("is the one given, else the one start-up plugged in, else none (the work runs in the call)", () => {
    expect(jobQueueFor({})).toBeNull();
    expect(jobQueueFor(undefined)).toBeNull();
    const plugged = queue("plugged");
    plugJobQueue(plugged);
    expect(jobQueueFor({})).toBe(plugged);
    const given = queue("given");
    expect(jobQueueFor({ queue: given })).toBe(given);
    plugJobQueue(null);
    expect(jobQueueFor({})).toBeNull();
  });

  it("is kept on globalThis, where Next's separately bundled routes find what instrumentation.ts plugged in", () => {
    const plugged = queue("plugged");
    plugJobQueue(plugged);
    expect((globalThis as { __branchpointJobQueue?: JobQueue }).__branchpointJobQueue).toBe(plugged);
  });
});
