import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { decodeOtlpJson, decodeOtlpJsonValue, decodeOtlpProtobuf } from "./decode";
import { gunzipIfNeeded } from "./gzip";
import { exportTraceServiceRequestType } from "./proto";
import { recordings, spansOf } from "./testing";

const withoutPath = <T extends { path: string }>(spans: T[]) => spans.map(({ path: _path, ...rest }) => rest);

describe("decoding the recorded exports", () => {
  const json = recordings("json");
  const bin = recordings("bin");

  it("has a protobuf recording for every SDK recording", () => {
    for (const name of json.keys()) if (name !== "openinference-handwritten") expect(bin.has(name), name).toBe(true);
    expect(json.size).toBeGreaterThanOrEqual(6);
  });

  for (const [name, files] of bin) {
    it(`${name}: the protobuf export decodes to the same spans as the JSON one`, () => {
      const fromJson = spansOf(json.get(name) ?? []);
      const fromProto = spansOf(files);
      expect(fromProto.length).toBeGreaterThan(0);
      expect(withoutPath(fromProto)).toEqual(withoutPath(fromJson));
    });
  }

  it("normalizes ids, times and attribute values", () => {
    const spans = spansOf(json.get("ai7-genai-generate")!);
    const tool = spans.find((s) => s.attributes["gen_ai.tool.name"] === "refund_payment")!;
    expect(tool.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(tool.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(tool.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(tool.status).toEqual({ code: 2, message: "card processor unavailable" });
    expect(tool.events[0]?.attributes["exception.message"]).toBe("card processor unavailable");
    expect(tool.resource["service.name"]).toBe("branchpoint-recorder");
    const chat = spans.find((s) => s.attributes["gen_ai.operation.name"] === "chat")!;
    expect(chat.attributes["gen_ai.usage.input_tokens"]).toBe(42);
    expect(chat.attributes["gen_ai.request.temperature"]).toBe(0);
    expect(chat.attributes["gen_ai.response.finish_reasons"]).toEqual(["tool-calls"]);
    expect(chat.path).toMatch(/^resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[\d+\]$/);
  });
});

const span = (over: Record<string, unknown> = {}) => ({
  traceId: "5b8efff798038103d269b633813fc60c",
  spanId: "eee19b7ec3c1b174",
  name: "chat",
  kind: 3,
  startTimeUnixNano: "1767225600000000000",
  endTimeUnixNano: "1767225601000000000",
  attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "chat" } }],
  ...over,
});
const request = (...spans: unknown[]) => ({
  resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "t" }, spans }] }],
});
const at = (i: number) => `resourceSpans[0].scopeSpans[0].spans[${i}]`;

describe("OTLP JSON: every AnyValue kind and both spellings", () => {
  it("reads the AnyValue kinds", () => {
    const result = decodeOtlpJsonValue(
      request(
        span({
          attributes: [
            { key: "s", value: { stringValue: "x" } },
            { key: "i", value: { intValue: "9007199254740993" } },
            { key: "n", value: { intValue: 7 } },
            { key: "d", value: { doubleValue: 0.5 } },
            { key: "b", value: { boolValue: true } },
            { key: "a", value: { arrayValue: { values: [{ stringValue: "p" }, { intValue: "2" }] } } },
            { key: "k", value: { kvlistValue: { values: [{ key: "inner", value: { boolValue: false } }] } } },
            { key: "y", value: { bytesValue: "AAE=" } },
            { key: "e", value: {} },
          ],
        }),
      ),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.spans[0]!.attributes).toEqual({
      s: "x",
      i: "9007199254740993", // beyond 2^53: kept exact, as text
      n: 7,
      d: 0.5,
      b: true,
      a: ["p", 2],
      k: { inner: false },
      y: "AAE=",
      e: null,
    });
  });

  it("accepts proto field names, enum names and a span with no end", () => {
    const result = decodeOtlpJsonValue({
      resource_spans: [
        {
          scope_spans: [
            {
              spans: [
                {
                  trace_id: "5B8EFFF798038103D269B633813FC60C",
                  span_id: "eee19b7ec3c1b174",
                  parent_span_id: "",
                  name: "x",
                  kind: "SPAN_KIND_CLIENT",
                  start_time_unix_nano: "1",
                  status: { code: "STATUS_CODE_ERROR" },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(result).toMatchObject({
      ok: true,
      spans: [
        {
          traceId: "5b8efff798038103d269b633813fc60c",
          parentSpanId: null,
          kind: 3,
          endTimeUnixNano: null,
          status: { code: 2 },
        },
      ],
    });
  });

  it("takes times up to the largest stored, 2^63 - 1 ns", () => {
    const result = decodeOtlpJsonValue(
      request(span({ startTimeUnixNano: "1", endTimeUnixNano: "9223372036854775807" })),
    );
    expect(result).toMatchObject({
      ok: true,
      spans: [{ startTimeUnixNano: "1", endTimeUnixNano: "9223372036854775807" }],
    });
  });

  it("accepts an empty export", () => {
    expect(decodeOtlpJsonValue({})).toEqual({ ok: true, spans: [] });
    expect(decodeOtlpJsonValue({ resourceSpans: [] })).toEqual({ ok: true, spans: [] });
  });
});

describe("malformed OTLP JSON: every problem at its exact path, nothing decoded", () => {
  const cases: [string, unknown, { path: string; message: RegExp }[]][] = [
    ["not an object", [1, 2], [{ path: "", message: /must be a JSON object/ }]],
    ["resourceSpans not an array", { resourceSpans: {} }, [{ path: "resourceSpans", message: /must be an array/ }]],
    ["a span that is not an object", request(3), [{ path: at(0), message: /must be an object \(Span\)/ }]],
    [
      "bad ids",
      request(span({ traceId: "xyz" }), span({ spanId: 12 }), span({ traceId: "00000000000000000000000000000000" })),
      [
        { path: `${at(0)}.traceId`, message: /32 hex digits/ },
        { path: `${at(1)}.spanId`, message: /hex digits/ },
        { path: `${at(2)}.traceId`, message: /all zeros/ },
      ],
    ],
    [
      "missing and bad times",
      request(span({ startTimeUnixNano: undefined }), span({ endTimeUnixNano: "soon" })),
      [
        { path: `${at(0)}.startTimeUnixNano`, message: /required/ },
        { path: `${at(1)}.endTimeUnixNano`, message: /nanoseconds/ },
      ],
    ],
    [
      "a time past what is stored (2^63 ns, in the year 2262)",
      request(span({ startTimeUnixNano: "9223372036854775808", endTimeUnixNano: "18446744073709551615" })),
      [
        {
          path: `${at(0)}.startTimeUnixNano`,
          message: /^is out of range: nanoseconds since 1970 are at most 9223372036854775807/,
        },
        { path: `${at(0)}.endTimeUnixNano`, message: /^is out of range/ },
      ],
    ],
    [
      "bad attributes",
      request(
        span({
          attributes: [
            { key: "gen_ai.usage.input_tokens", value: { intValue: "12.5" } },
            { key: "", value: { stringValue: "x" } },
            { key: "x", value: { stringValue: 5 } },
            { key: "y", value: { stringValue: "a", intValue: 1 } },
            { key: "z", value: { mapValue: {} } },
            { key: "w", value: { arrayValue: { values: [{ doubleValue: "abc" }] } } },
          ],
        }),
      ),
      [
        { path: `${at(0)}.attributes[0].value.intValue`, message: /integer/ },
        { path: `${at(0)}.attributes[1].key`, message: /non-empty string/ },
        { path: `${at(0)}.attributes[2].value.stringValue`, message: /wrong type/ },
        { path: `${at(0)}.attributes[3].value`, message: /exactly one value/ },
        { path: `${at(0)}.attributes[4].value`, message: /unknown AnyValue field "mapValue"/ },
        { path: `${at(0)}.attributes[5].value.arrayValue.values[0].doubleValue`, message: /number/ },
      ],
    ],
    ["events not a list", request(span({ events: {} })), [{ path: `${at(0)}.events`, message: /must be an array/ }]],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      const result = decodeOtlpJsonValue(input);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.issues.map((i) => i.path)).toEqual(expected.map((e) => e.path));
      result.issues.forEach((issue, i) => expect(issue.message).toMatch(expected[i]!.message));
    });
  }

  it("reports text that is not JSON", () => {
    expect(decodeOtlpJson("{ nope")).toMatchObject({ ok: false, issues: [{ path: "", message: /not JSON/ }] });
    expect(decodeOtlpJson(new Uint8Array([0xff, 0xfe, 0x00]))).toMatchObject({
      ok: false,
      issues: [{ message: /UTF-8/ }],
    });
  });
});

describe("OTLP protobuf", () => {
  it("reports bytes that are not an ExportTraceServiceRequest", () => {
    const result = decodeOtlpProtobuf(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expect(result).toMatchObject({
      ok: false,
      issues: [{ path: "", message: /not a protobuf ExportTraceServiceRequest/ }],
    });
  });

  it("reports a span with a wrong-length id at its path", () => {
    const type = exportTraceServiceRequestType();
    const bytes = type
      .encode(
        type.fromObject({
          resourceSpans: [
            {
              scopeSpans: [
                {
                  spans: [
                    { traceId: new Uint8Array(4), spanId: new Uint8Array(8).fill(1), name: "x", startTimeUnixNano: 1 },
                  ],
                },
              ],
            },
          ],
        }),
      )
      .finish();
    expect(decodeOtlpProtobuf(bytes)).toEqual({
      ok: false,
      issues: [
        { path: "resourceSpans[0].scopeSpans[0].spans[0].traceId", message: "must be 32 hex digits (16 bytes)" },
      ],
    });
  });
});

describe("gunzipIfNeeded", () => {
  it("inflates gzip, declared or sniffed, and passes anything else through", () => {
    const plain = new TextEncoder().encode('{"resourceSpans":[]}');
    const zipped = new Uint8Array(gzipSync(plain));
    expect(gunzipIfNeeded(zipped, "gzip")).toEqual({ ok: true, bytes: plain });
    expect(gunzipIfNeeded(zipped)).toEqual({ ok: true, bytes: plain });
    expect(gunzipIfNeeded(plain, "gzip")).toEqual({ ok: true, bytes: plain });
    expect(gunzipIfNeeded(plain)).toEqual({ ok: true, bytes: plain });
  });

  it("reports a broken gzip body", () => {
    expect(gunzipIfNeeded(new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x01]), "gzip")).toMatchObject({
      ok: false,
      issue: { path: "", message: /does not inflate/ },
    });
  });
});
