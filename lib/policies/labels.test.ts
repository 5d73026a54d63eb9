import { describe, expect, it } from "vitest";
import {
  Approval,
  DriftPolicy,
  HistoryScope,
  MatchMode,
  ModelPolicy,
  OnMiss,
  SideEffect,
  ToolLevel,
  ToolRule,
} from "@/lib/replay";
import { ALL_WORDS, type Words } from "./labels";
import { REPLAY_PRESETS } from "./presets";

/** Each dictionary beside the values of its enum, read from the schema itself (not from the dictionary). */
const ENUMS: Record<keyof typeof ALL_WORDS, readonly string[]> = {
  model: ModelPolicy.options,
  drift: DriftPolicy.options,
  ruleType: ToolRule.options.map((o) => o.shape.type.value),
  onMiss: OnMiss.options,
  scope: HistoryScope.options,
  matchMode: MatchMode.options,
  approval: Approval.options,
  sideEffect: SideEffect.options,
  preset: ["recommended", ...ToolLevel.options],
  replayPreset: REPLAY_PRESETS,
};

describe("the words for every enum value", () => {
  for (const [name, values] of Object.entries(ENUMS) as [keyof typeof ALL_WORDS, readonly string[]][]) {
    const words: Record<string, Words> = ALL_WORDS[name];
    it(`${name}: exactly one entry per value, a label and a one-line explanation`, () => {
      expect(Object.keys(words).sort()).toEqual([...values].sort());
      for (const value of values) {
        const { label, help } = words[value]!;
        expect(label.trim().length, `${name}.${value} label`).toBeGreaterThan(0);
        // Plain words: the label is not the raw value, and it is short.
        expect(label, `${name}.${value} label`).not.toBe(value);
        expect(label.length, `${name}.${value} label`).toBeLessThanOrEqual(45);
        // One line: one or two sentences, no line break, ending as a sentence.
        expect(help, `${name}.${value} help`).not.toMatch(/\n/);
        expect(help, `${name}.${value} help`).toMatch(/^[A-Z].*\.$/);
        expect(help.length, `${name}.${value} help`).toBeLessThanOrEqual(200);
      }
    });
    it(`${name}: the labels tell the values apart`, () => {
      const labels = values.map((v) => words[v]!.label.toLowerCase());
      expect(new Set(labels).size).toBe(labels.length);
    });
  }

  it("the words cite no spec and no seed", () => {
    for (const words of Object.values(ALL_WORDS)) {
      for (const { label, help } of Object.values(words as Record<string, Words>)) {
        expect(`${label} ${help}`).not.toMatch(/§|DESIGN|\bseed\b|kitaru/i);
      }
    }
  });
});
