import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importOpenAiAgents } from "./openai-agents";
import { metadataTitle } from "./title";

describe("a title from the source's metadata", () => {
  it("takes `title`, else `name`, as one line of at most 80 characters; nothing else is a title", () => {
    expect(metadataTitle({ title: "  Refund for\n acme  ", name: "x" })).toBe("Refund for acme");
    expect(metadataTitle({ name: "Nightly eval #12" })).toBe("Nightly eval #12");
    expect(metadataTitle({ title: "", name: "  " })).toBeNull();
    expect(metadataTitle({ title: 7 })).toBeNull();
    expect(metadataTitle(["title"])).toBeNull();
    expect(metadataTitle(null)).toBeNull();
    expect(metadataTitle({ title: "x".repeat(100) })).toBe(`${"x".repeat(79)}…`);
  });

  it("names an Agents SDK run by its trace's metadata title, else by its first user message as before", () => {
    const file = path.join(path.dirname(new URL(import.meta.url).pathname), "__fixtures__", "openai-agents-chat.json");
    const doc = JSON.parse(readFileSync(file, "utf8")) as { data: { object: string; metadata?: object }[] };
    const titleOf = (d: unknown) => {
      const result = importOpenAiAgents(d);
      if (!result.ok) throw new Error("did not import");
      return result.sessions[0]!.title;
    };
    expect(titleOf(doc)).toBe("Refund order 4821 and tell me what time it is.");
    const titled = {
      data: doc.data.map((item) =>
        item.object === "trace" ? { ...item, metadata: { customer: "acme", title: "Refund run 7 (acme)" } } : item,
      ),
    };
    expect(titleOf(titled)).toBe("Refund run 7 (acme)");
  });
});
