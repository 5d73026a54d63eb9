import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

/**
 * Heavy imports (a document, a trace export) run a few at a time. Eight
 * large imports at once held the embedded database for 40 s, /api/health
 * included. A request past the running ones waits in a short queue; past
 * that it gets 429 with Retry-After (OTLP exporters retry it).
 */

/** Requests that may wait for a slot, per running slot. */
const QUEUE_PER_SLOT = 2;
export const IMPORT_RETRY_AFTER_SECONDS = 2;

type Waiter = () => void;

export class Slots {
  private running = 0;
  private readonly queue: Waiter[] = [];
  constructor(
    readonly limit: number,
    readonly queueLimit: number,
  ) {}

  /** A release function once a slot is free; throws 429 when the queue is full too. */
  async acquire(): Promise<() => void> {
    if (this.running < this.limit) {
      this.running++;
      return this.releaser();
    }
    if (this.queue.length >= this.queueLimit) {
      throw new AppError(
        "busy",
        `The server is busy with other imports; send this again in ${IMPORT_RETRY_AFTER_SECONDS} seconds.`,
      );
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
    return this.releaser();
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    };
  }

  get busy(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.queue.length };
  }
}

const holder = globalThis as unknown as { __branchpointImportSlots?: Slots };

function slots(): Slots {
  const limit = env().BRANCHPOINT_IMPORT_CONCURRENCY;
  holder.__branchpointImportSlots ??= new Slots(limit, limit * QUEUE_PER_SLOT);
  return holder.__branchpointImportSlots;
}

/** Runs `work` in an import slot. */
export async function withImportSlot<T>(work: () => Promise<T>): Promise<T> {
  const release = await slots().acquire();
  try {
    return await work();
  } finally {
    release();
  }
}
