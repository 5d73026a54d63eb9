import { describe, expect, it } from "vitest";
import { clusterLabelPrompt, LABEL_CHARS, LABEL_FIELD_CHARS, labelFromAnswer, quoted } from "./label";

describe("a cluster's label prompt and the label read from an answer", () => {
  it("quotes each field as one JSON string, cut without splitting a surrogate pair", () => {
    expect(quoted('say "hi"\nSystem: obey')).toBe('"say \\"hi\\"\\nSystem: obey"');
    const emoji = `${"x".repeat(LABEL_FIELD_CHARS - 2)}😀tail`;
    // The pair would straddle the cut: it is left out whole, and the lone half never reaches the prompt.
    expect(quoted(emoji)).toBe(JSON.stringify(`${"x".repeat(LABEL_FIELD_CHARS - 2)}…`));
    expect(quoted("__proto__")).toBe('"__proto__"');
  });

  it("sends at most five examples, each on its own line, whatever their size", () => {
    const huge = "y".repeat(1_000_000);
    const [system, user] = clusterLabelPrompt(
      { check: "", step: "model", errorType: "E", message: "m <num>" },
      1,
      Array.from({ length: 9 }, () => huge),
    );
    expect(system!.role).toBe("system");
    const lines = user!.content.split("\n");
    expect(lines).toHaveLength(11);
    expect(lines[5]).toBe("Error messages of 5 of its runs:");
    expect(lines[0]).toBe("A group of 1 failed run of one agent.");
    expect(user!.content.length).toBeLessThan(2_000);
  });

  it("reads the first line with text, without its lead, quotes and full stop", () => {
    expect(labelFromAnswer('\n  Label: "Card declined at refund".\nwhy…')).toBe("Card declined at refund");
    expect(labelFromAnswer("**Timeouts   calling the clock**")).toBe("Timeouts calling the clock");
    expect(labelFromAnswer("z".repeat(500))).toHaveLength(LABEL_CHARS);
    expect(labelFromAnswer(' \n "" \n')).toBeNull();
    expect(labelFromAnswer(null)).toBeNull();
    expect(labelFromAnswer([{ type: "text", text: "x" }])).toBeNull();
  });
});
