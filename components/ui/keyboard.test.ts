import { describe, expect, it } from "vitest";
import { isTypingTarget, SHORTCUTS, stepIndex } from "./keyboard";
import { NAV_LINKS, navLinkForKey } from "./navLinks";

describe("stepIndex", () => {
  it.each([
    [-1, 5, 1, 0],
    [-1, 5, -1, 4],
    [0, 5, 1, 1],
    [4, 5, 1, 4],
    [0, 5, -1, 0],
    [3, 5, -1, 2],
    [9, 5, 1, 0],
    [0, 0, 1, -1],
  ] as const)("from %i of %i by %i is %i", (current, count, delta, expected) => {
    expect(stepIndex(current, count, delta)).toBe(expected);
  });
});

describe("isTypingTarget", () => {
  const el = (tagName: string, extra: Record<string, unknown> = {}) =>
    ({ tagName, isContentEditable: false, closest: () => null, ...extra }) as unknown as EventTarget;
  it("treats text fields, text areas and selects as typing", () => {
    expect(isTypingTarget(el("INPUT", { type: "search" }))).toBe(true);
    expect(isTypingTarget(el("INPUT", { type: "text" }))).toBe(true);
    expect(isTypingTarget(el("TEXTAREA"))).toBe(true);
    expect(isTypingTarget(el("SELECT"))).toBe(true);
  });
  it("does not treat buttons, checkboxes, links or the page as typing", () => {
    expect(isTypingTarget(el("INPUT", { type: "checkbox" }))).toBe(false);
    expect(isTypingTarget(el("BUTTON"))).toBe(false);
    expect(isTypingTarget(el("A"))).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
  it("treats content-editable elements and Monaco as typing", () => {
    expect(isTypingTarget(el("DIV", { isContentEditable: true }))).toBe(true);
    expect(isTypingTarget(el("DIV", { closest: () => ({}) }))).toBe(true);
  });
});

describe("g then a letter", () => {
  it("goes to each section by its key, and by an earlier key no section has taken", () => {
    const go = (key: string) => navLinkForKey(key)?.href ?? null;
    expect(["h", "i", "p", "b", "v", "e", "c", "r", "s", "o", "t", "x"].map(go)).toEqual([
      "/sessions",
      "/import",
      "/policies",
      "/replays",
      "/investigations",
      "/experiments",
      "/checks",
      "/reports",
      "/settings",
      "/reports",
      "/settings",
      null,
    ]);
  });
  it("no two sections share a key, and no earlier key is another section's", () => {
    const keys = NAV_LINKS.map((l) => l.key);
    const also = NAV_LINKS.flatMap((l) => l.also ?? []);
    expect(new Set([...keys, ...also]).size).toBe(keys.length + also.length);
  });
  it("the help lists every section's shortcut", () => {
    expect(SHORTCUTS.filter((s) => s.keys[0] === "g").map((s) => `${s.keys.join(" ")}: ${s.does}`)).toEqual([
      "g h: Go to Sessions",
      "g i: Go to Import",
      "g p: Go to Policies",
      "g b: Go to Replays",
      "g v: Go to Investigations",
      "g e: Go to Experiments",
      "g d: Go to Datasets",
      "g c: Go to Checks",
      "g f: Go to Failures",
      "g w: Go to Reviews",
      "g r: Go to Reports (g o also works)",
      "g s: Go to Settings (g t also works)",
    ]);
  });
});
