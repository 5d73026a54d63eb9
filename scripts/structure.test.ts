import { describe, expect, it } from "vitest";
import { lineCount, longFunctions, MAX_FILE_LINES, sizeViolations } from "./structure";

/**
 * What still breaks the size rules, being split up: the list may only shrink.
 * A file or function not on it that grows past a limit fails the test, and so
 * does one on it that no longer breaks the rule (take it off).
 */
const NOT_YET_SPLIT: readonly string[] = [
  "components/compare/CompareView.tsx: CompareView (line 38) is 224 lines",
  "components/experiments/NewExperimentForm.tsx: NewExperimentForm (line 34) is 204 lines",
  "components/policies/InterchangePanel.tsx: InterchangePanel (line 46) is 158 lines",
  "components/policies/PolicyEditor.tsx: PolicyEditor (line 46) is 286 lines",
  "components/policies/ToolTable.tsx: ToolTable (line 37) is 208 lines",
  "components/policies/TryRulePanel.tsx: TryRulePanel (line 21) is 163 lines",
  "components/replays/CoveragePanel.tsx: CoveragePanel (line 43) is 158 lines",
  "components/replays/StartReplayForm.tsx: StartReplayForm (line 84) is 285 lines",
  "components/reports/PairPicker.tsx: PairPicker (line 47) is 196 lines",
  "components/reports/ReportForm.tsx: ReportForm (line 148) is 188 lines",
  "components/reports/ReportView.tsx: ReportView (line 88) is 241 lines",
];

describe("size rules", () => {
  it("measures files and functions", () => {
    expect(lineCount("a\nb\n")).toBe(2);
    const body = Array.from({ length: 151 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `export function big() {\n${body}\n}\nconst small = () => 1;\nconst arrow = () => {\n${body}\n};\n`;
    expect(longFunctions("x.ts", text)).toEqual([
      { name: "big (line 1)", lines: 153 },
      { name: "arrow (line 155)", lines: 153 },
    ]);
    expect(MAX_FILE_LINES).toBe(500);
  });

  it("holds for every hand-written file", { timeout: 60_000 }, () => {
    const found = sizeViolations().map((v) => v.replace(/ \(line \d+\)/, ""));
    const known = NOT_YET_SPLIT.map((v) => v.replace(/ \(line \d+\)/, ""));
    const byPlace = (v: string) => v.replace(/ is \d+ lines$| \d+ lines$/, "");
    const size = (v: string) => Number(/(\d+) lines$/.exec(v)?.[1]);
    const grew = found.filter((v) => !known.some((k) => byPlace(k) === byPlace(v) && size(v) <= size(k)));
    const fixed = known.filter((k) => !found.some((v) => byPlace(v) === byPlace(k)));
    expect({ grew, fixed }).toEqual({ grew: [], fixed: [] });
  });
});
