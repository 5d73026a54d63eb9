import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/errors";
import { Slots } from "./heavy";

describe("import slots", () => {
  it("runs `limit` at a time, queues a few, refuses the rest with 429, and hands slots on in order", async () => {
    const slots = new Slots(2, 2);
    const a = await slots.acquire();
    const b = await slots.acquire();
    const order: string[] = [];
    const c = slots.acquire().then((release) => (order.push("c"), release));
    const d = slots.acquire().then((release) => (order.push("d"), release));
    expect(slots.busy).toEqual({ running: 2, waiting: 2 });
    const refused = await slots.acquire().then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(429);
    a();
    a(); // releasing twice frees one slot only
    const releaseC = await c;
    expect(order).toEqual(["c"]);
    expect(slots.busy).toEqual({ running: 2, waiting: 1 });
    b();
    const releaseD = await d;
    expect(order).toEqual(["c", "d"]);
    releaseC();
    releaseD();
    expect(slots.busy).toEqual({ running: 0, waiting: 0 });
  });
});
