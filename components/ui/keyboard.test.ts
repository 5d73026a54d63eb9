import { describe, expect, it } from "vitest";
import { isTypingTarget, stepIndex } from "./keyboard";

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
