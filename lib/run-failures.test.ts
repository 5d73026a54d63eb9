import { describe, expect, it } from "vitest";
import {
  RUN_FAILURE_CODES,
  RUN_FAILURE_WORDS,
  RunFailureCode,
  runFailure,
  runFailureWords,
  UNKNOWN_RUN_FAILURE_WORDS,
} from "./run-failures";

describe("run failure codes", () => {
  it("has words for every code, each its own sentence", () => {
    expect(Object.keys(RUN_FAILURE_WORDS).sort()).toEqual([...RUN_FAILURE_CODES].sort());
    for (const code of RUN_FAILURE_CODES) {
      expect(runFailureWords(code)).toBe(RUN_FAILURE_WORDS[code]);
      expect(runFailureWords(code)).toMatch(/^[A-Z].*\.$/);
    }
    expect(new Set(Object.values(RUN_FAILURE_WORDS)).size).toBe(RUN_FAILURE_CODES.length);
  });

  it("gives an unknown stored code (an older row's) the generic words, and never throws", () => {
    for (const stored of ["lease_expired", "", "not_found", null, undefined, 42, { code: "x" }])
      expect(runFailureWords(stored)).toBe(UNKNOWN_RUN_FAILURE_WORDS);
    expect(RunFailureCode.safeParse("lease_expired").success).toBe(false);
  });

  it("writes only codes of the list", () => {
    expect(runFailure("gave_up", "Stopped.")).toEqual({ code: "gave_up", message: "Stopped." });
    // @ts-expect-error a code outside the list does not typecheck
    runFailure("worker_died", "Stopped.");
  });
});
