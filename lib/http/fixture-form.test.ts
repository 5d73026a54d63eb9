import { describe, expect, it } from "vitest";
import { parseFixtureForm } from "./fixture-form";

describe("parseFixtureForm", () => {
  it.each([
    ["output", '{"a":1}', { ok: true, body: { output: { a: 1 } } }],
    ["output", "null", { ok: true, body: { output: null } }],
    [
      "error",
      '{"type":"Timeout","message":"slow"}',
      { ok: true, body: { error: { type: "Timeout", message: "slow" } } },
    ],
  ] as const)("%s %s is accepted", (kind, text, expected) => {
    expect(parseFixtureForm(kind, text)).toEqual(expected);
  });

  it("names what is wrong", () => {
    const bad = parseFixtureForm("output", "{oops");
    expect(bad).toMatchObject({ ok: false, path: "text" });
    expect(bad.ok ? "" : bad.message).toMatch(/^The output is not valid JSON: /);
    expect(parseFixtureForm("output", "  ")).toMatchObject({
      ok: false,
      path: "text",
      message: expect.stringContaining("write null") as unknown,
    });
    expect(parseFixtureForm("error", '{"message":"x"}')).toMatchObject({
      ok: false,
      path: "text",
      message: expect.stringContaining('"type"') as unknown,
    });
  });
});
