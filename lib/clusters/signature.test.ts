import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maskMessage, maskWithCount } from "./mask";
import {
  defaultLabel,
  failureSignature,
  isFailedSession,
  signatureHash,
  storedSignature,
  type FailureStep,
} from "./signature";

describe("masking an error message", () => {
  it.each([
    ["Order ord_4821 not found.", "Order <id> not found."],
    [
      "Payment declined for card 4242424242424242: amount $1,299.00 exceeds limit 1000",
      "Payment declined for card <num>: amount <num> exceeds limit <num>",
    ],
    ["Timeout after 30s calling https://api.example.com/v1/orders/4821?x=1&y=(2)", "Timeout after <num> calling <url>"],
    ["File /var/data/orders/4821.json missing at 2025-03-11T14:02:07.412Z", "File <path> missing at <ts>"],
    ["C:\\Users\\ann\\out.txt and ./rel/file and ~/x", "<path> and <path> and <path>"],
    [
      "User 'alice' can't refund \"order 12\" (id 550e8400-e29b-41d4-a716-446655440000)",
      "User <str> can't refund <str> (id <uuid>)",
    ],
    ["hash deadbeef12 or 0xFF and 0x1f", "hash <hex> or <hex> and <hex>"],
    ["KeyError: 'customer_email'", "KeyError: <str>"],
    ["at 14:02:07, mail bob@example.com", "at <ts>, mail <email>"],
    ["  many\t\n spaces  ", "many spaces"],
    ["took 12.5 seconds, 500ms, 12%", "took <num> seconds, <num>, <num>"],
    ["run_01JP6Q3M8Z4K2F7WQX1D9RBT5N failed (SUP-20931)", "<id> failed (<id>)"],
    ["«Kunde» nicht gefunden: Bestellung №12", "«Kunde» nicht gefunden: Bestellung <id>"],
    ['unterminated "quote 12', 'unterminated "quote <num>'],
  ])("%j → %j", (message, template) => {
    expect(maskMessage(message)).toBe(template);
  });

  it("gives one template for any values in the masked places (property)", () => {
    const id = fc.stringMatching(/^[a-z]{2,4}_[0-9][0-9a-z]{3,12}$/);
    const amount = fc.integer({ min: 1, max: 10_000_000 }).map((c) => `$${(c / 100).toFixed(2)}`);
    const time = fc
      .date({ min: new Date(2000, 0, 1), max: new Date(2100, 0, 1), noInvalidDate: true })
      .map((d) => d.toISOString());
    const uuid = fc.uuid();
    const quoted = fc.string({ maxLength: 40 }).filter((s) => !s.includes('"'));
    const path = fc
      .array(fc.stringMatching(/^[a-z0-9_-]([a-z0-9_.-]{0,6}[a-z0-9_-])?$/), { minLength: 1, maxLength: 5 })
      .map((p) => `/${p.join("/")}`);
    const url = fc.webUrl();
    fc.assert(
      fc.property(id, amount, time, uuid, quoted, path, url, (i, a, t, u, q, p, w) => {
        const message = `Refund of ${a} for order ${i} at ${t} failed: "${q}" (trace ${u}, file ${p}) see ${w}`;
        expect(maskMessage(message)).toBe(
          "Refund of <num> for order <id> at <ts> failed: <str> (trace <uuid>, file <path>) see <url>",
        );
      }),
      { numRuns: 200 },
    );
  }, 60_000);

  it("is linear in the length of hostile input (1 MB, bounded by a count of operations)", () => {
    const size = 1 << 20;
    const hostile = [
      '"'.repeat(size),
      "'a".repeat(size / 2),
      "\u201c".repeat(size),
      "a".repeat(size),
      "1,".repeat(size / 2),
      "/".repeat(size),
      "https://".repeat(size / 8),
      "x ".repeat(size / 2),
      "\"'`\u201c\u2018".repeat(size / 5),
      "0x".repeat(size / 2),
      "1:".repeat(size / 2),
      "\ud800".repeat(size),
    ];
    for (const text of hostile) {
      const started = performance.now();
      const { operations } = maskWithCount(text);
      // Each character visited a small constant number of times, whatever the text.
      expect(operations, text.slice(0, 12)).toBeLessThanOrEqual(4 * text.length + 8);
      // A generous wall-clock bound as well, for a loaded machine (a quadratic pass over 1 MB takes hours).
      expect(performance.now() - started).toBeLessThan(20_000);
    }
  }, 240_000);
});

const step = (over: Partial<FailureStep>): FailureStep => ({
  seq: 0,
  kind: "tool_call",
  name: "t",
  status: "completed",
  error: null,
  ...over,
});

describe("which sessions failed, and their signature", () => {
  it("counts a failed status, or a failed tool call no later call of that tool recovered", () => {
    const failed = step({ seq: 1, status: "failed", error: { type: "E", message: "x" } });
    expect(isFailedSession({ status: "failed" }, [])).toBe(true);
    expect(isFailedSession({ status: "completed" }, [failed])).toBe(true);
    expect(isFailedSession({ status: "completed" }, [failed, step({ seq: 2 })])).toBe(false);
    // A later call of another tool does not recover it; an earlier call of the same tool does not either.
    expect(isFailedSession({ status: "completed" }, [step({ seq: 0 }), failed, step({ seq: 2, name: "u" })])).toBe(
      true,
    );
    // A failed model step alone, in a completed session, is not a failed session.
    expect(isFailedSession({ status: "completed" }, [step({ seq: 1, kind: "model_call", status: "failed" })])).toBe(
      false,
    );
  });

  it("names the first failed step that was not recovered, its error type and the template", () => {
    const sig = failureSignature({ status: "failed" }, [
      step({ seq: 1, name: "lookup", status: "failed", error: { type: "Timeout", message: "after 30s" } }),
      step({ seq: 2, name: "lookup" }),
      step({ seq: 3, name: "refund", status: "failed", error: { type: "Declined", message: "card 4242 declined" } }),
      step({
        seq: 4,
        kind: "model_call",
        name: "gpt-4o",
        status: "failed",
        error: { type: "RateLimit", message: "slow down" },
      }),
    ]);
    expect(sig).toEqual({ check: "", step: "tool:refund", errorType: "Declined", message: "card <num> declined" });
    expect(defaultLabel(sig!)).toBe("refund: Declined: card <num> declined");
    const model = failureSignature({ status: "failed" }, [
      step({
        seq: 0,
        kind: "model_call",
        name: "gpt-4o-2024-08-06",
        status: "failed",
        error: { type: "RateLimit", message: "429" },
      }),
    ]);
    expect(model).toEqual({ check: "", step: "model", errorType: "RateLimit", message: "<num>" });
    expect(failureSignature({ status: "completed" }, [])).toBeNull();
    expect(failureSignature({ status: "failed" }, [])).toEqual({ check: "", step: "", errorType: "", message: "" });
  });
});

describe("signature hashes under hostile input", () => {
  const sig = (check: string, s: string, errorType: string, message: string) => ({
    check,
    step: s,
    errorType,
    message,
  });

  it("keeps fields apart: text that moves between fields gives another hash", () => {
    const hashes = [
      sig("", "tool:a", "E", "x"),
      sig("", "tool:a", "Ex", ""),
      sig("", "tool:aE", "", "x"),
      sig("tool:a", "", "E", "x"),
      sig("", "tool:a", "E\u0000", "x"),
      sig("", "tool:a\u0000\u0000\u0000\u0001", "E", "x"),
      sig("", "__proto__", "constructor", "x"),
      sig("", "__proto__", "", "constructorx"),
    ].map(signatureHash);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it("keeps lone surrogates apart from U+FFFD and from each other, and long texts apart at the end", () => {
    const long = "é".repeat(200_000);
    const hashes = [
      sig("", "", "", "a\ud800"),
      sig("", "", "", "a\udc00"),
      sig("", "", "", "a\ufffd"),
      sig("", "", "", "a\ud800\udc00"),
      sig("", "", "", `${long}a`),
      sig("", "", "", `${long}b`),
    ].map(signatureHash);
    expect(new Set(hashes).size).toBe(hashes.length);
    // What is stored is storable and cut, whatever the hash covers.
    const stored = storedSignature(sig("", "", "\ud800", `${long}a`));
    expect(stored.errorType).toBe("\ufffd");
    expect(stored.message.length).toBeLessThanOrEqual(1001);
  });

  it("hashes equal signatures equally, whatever object they came in", () => {
    const a = sig("", "tool:x", "E", "m");
    const b = JSON.parse(
      '{"__proto__": {"polluted": 1}, "check": "", "step": "tool:x", "errorType": "E", "message": "m"}',
    ) as typeof a;
    expect(signatureHash(b)).toBe(signatureHash(a));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
