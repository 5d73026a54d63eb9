import { describe, expect, it } from "vitest";
import { importers } from "../registry";
import { survey } from "./survey";

async function* once(text: string) {
  yield text;
}

describe("survey", () => {
  it("keeps a top-level member named __proto__ as a member of the header, not the header's prototype", async () => {
    const text = JSON.stringify({ messages: [{ role: "user", content: "Hi" }] }).replace(
      /^\{/,
      '{"__proto__":{"polluted":true},',
    );
    const plan = await survey(() => once(text), importers, {});
    expect(plan.kind).toBe("conversation");
    const header = (plan as Extract<typeof plan, { kind: "conversation" }>).header;
    expect(Object.hasOwn(header, "__proto__")).toBe(true);
    expect(Object.getOwnPropertyDescriptor(header, "__proto__")!.value).toEqual({ polluted: true });
    expect(Object.getPrototypeOf(header)).toBe(Object.prototype);
  });
});
