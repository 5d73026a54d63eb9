import { JsonLogsSerializer, ProtobufLogsSerializer } from "@opentelemetry/otlp-transformer";
import { describe, expect, it } from "vitest";
import { decodeOtlpJson, mapOtlpSpans, type OtlpSpan } from ".";
import { otlpExport } from "./genai-testing";
import {
  decodeOtlpLogsJson,
  decodeOtlpLogsJsonValue,
  decodeOtlpLogsProtobuf,
  genAiLogEvents,
  withLogEvents,
  type SpanLogEvent,
} from "./logs";
import {
  CONCIERGE_STEPS,
  CONCIERGE_TRACE,
  conciergeLogs,
  conciergeSpans,
  FIRST_CHAT,
  logRecord,
  SECOND_CHAT,
} from "./logs-testing";

const shape = (events: readonly { seq: number; kind: string; name: string; parentSeq: number | null }[]) =>
  events.map((e) => {
    const { seq, kind, name, parentSeq, status, input, output } = e as Record<string, unknown>;
    return { seq, kind, name, parentSeq, status, input, output };
  });

function spans(trace = CONCIERGE_TRACE): OtlpSpan[] {
  const decoded = decodeOtlpJson(otlpExport(conciergeSpans(trace)));
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
  return decoded.spans;
}

function events(bytes: Uint8Array, encoding: "json" | "protobuf"): SpanLogEvent[] {
  const decoded = encoding === "json" ? decodeOtlpLogsJson(bytes) : decodeOtlpLogsProtobuf(bytes);
  if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
  const read = genAiLogEvents(decoded.records);
  if (!read.ok) throw new Error(JSON.stringify(read.issues));
  return read.events;
}

function attach(list: readonly OtlpSpan[], logs: readonly SpanLogEvent[]): OtlpSpan[] {
  return list.map((span) =>
    withLogEvents(
      span,
      logs.filter((l) => l.traceId === span.traceId && l.spanId === span.spanId).map((l) => l.event),
    ),
  );
}

describe("GenAI events as OTLP log records", () => {
  it("read the same from the SDK's JSON and protobuf serializers: each record a span event of the span it names", () => {
    const records = conciergeLogs();
    const json = events(JsonLogsSerializer.serializeRequest(records)!, "json");
    const proto = events(ProtobufLogsSerializer.serializeRequest(records)!, "protobuf");
    expect(proto).toEqual(json);
    expect(json).toHaveLength(8);
    expect(json[1]).toEqual({
      traceId: CONCIERGE_TRACE,
      spanId: FIRST_CHAT,
      event: {
        name: "gen_ai.user.message",
        timeUnixNano: "1767225600001000000",
        attributes: { "gen_ai.system": "openai", "gen_ai.event.content": { content: "Book a table for 2." } },
      },
      path: "resourceLogs[0].scopeLogs[0].logRecords[1]",
    });
  });

  it("give the spans they name their messages, whichever of them is read first, once however often they come", () => {
    const logs = events(ProtobufLogsSerializer.serializeRequest(conciergeLogs())!, "protobuf");
    const mapped = mapOtlpSpans(attach(spans(), logs));
    if (!mapped.ok) throw new Error(JSON.stringify(mapped.issues));
    expect(shape(mapped.sessions[0]!.events)).toEqual(CONCIERGE_STEPS);
    // Sent in two exports, and again (an exporter's retry): the same spans as all at once.
    const split = attach(attach(attach(spans(), logs.slice(0, 4)), logs.slice(4)), logs);
    expect(split).toEqual(attach(spans(), logs));
    // Without them, the chat spans have no messages.
    const bare = mapOtlpSpans(spans());
    if (!bare.ok) throw new Error(JSON.stringify(bare.issues));
    expect(bare.sessions[0]!.events[0]!.input).toEqual({ messages: [], model: "gpt-4o-mini", provider: "openai" });
  });

  it("read the inference details event's messages, and the older `event.name` attribute", () => {
    const details = logRecord(CONCIERGE_TRACE, FIRST_CHAT, 9, "", undefined, {
      "event.name": "gen_ai.client.inference.operation.details",
      "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Hi" }] }]),
      "gen_ai.output.messages": JSON.stringify([
        { role: "assistant", parts: [{ type: "text", content: "Hello!" }], finish_reason: "stop" },
      ]),
    });
    const logs = events(JsonLogsSerializer.serializeRequest([details])!, "json");
    expect(logs.map((l) => l.event.name)).toEqual(["gen_ai.client.inference.operation.details"]);
    const mapped = mapOtlpSpans(attach(spans().slice(0, 1), logs));
    if (!mapped.ok) throw new Error(JSON.stringify(mapped.issues));
    expect(mapped.sessions[0]!.events[0]!.input).toEqual({
      messages: [{ role: "user", content: "Hi" }],
      model: "gpt-4o-mini",
      provider: "openai",
    });
    expect(mapped.sessions[0]!.events[0]!.output).toEqual({ role: "assistant", content: "Hello!" });
  });

  it("skip records that are not GenAI events, and count those that name no span", () => {
    const records = [
      logRecord(CONCIERGE_TRACE, SECOND_CHAT, 1, "app.started", "hello"),
      logRecord(CONCIERGE_TRACE, null, 1, "gen_ai.user.message", { content: "lost" }),
      logRecord(CONCIERGE_TRACE, SECOND_CHAT, 1, "gen_ai.user.message", { content: "kept" }),
    ];
    const decoded = decodeOtlpLogsJson(JsonLogsSerializer.serializeRequest(records)!);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
    const read = genAiLogEvents(decoded.records);
    expect(read.ok && read.events.map((e) => e.event.attributes["gen_ai.event.content"])).toEqual([
      { content: "kept" },
    ]);
    expect(read.ok && read.unattached).toBe(1);
  });

  it("keep outside keys like __proto__ and constructor as the record's own keys, never a prototype", () => {
    const text = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"${CONCIERGE_TRACE}","spanId":"${SECOND_CHAT}",
      "eventName":"gen_ai.user.message","timeUnixNano":"1",
      "attributes":[{"key":"__proto__","value":{"stringValue":"polluted"}},{"key":"constructor","value":{"intValue":"1"}}],
      "body":{"kvlistValue":{"values":[{"key":"__proto__","value":{"kvlistValue":{"values":[{"key":"x","value":{"boolValue":true}}]}}},
        {"key":"content","value":{"stringValue":"hi"}}]}}}]}]}]}`;
    const decoded = decodeOtlpLogsJson(new TextEncoder().encode(text));
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
    const read = genAiLogEvents(decoded.records);
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    const { attributes } = read.events[0]!.event;
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
    expect(Object.keys(attributes).sort()).toEqual(["__proto__", "constructor", "gen_ai.event.content"]);
    expect(Object.getOwnPropertyDescriptor(attributes, "__proto__")?.value).toBe("polluted");
    const content = attributes["gen_ai.event.content"] as Record<string, unknown>;
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype);
    expect(Object.keys(content)).toEqual(["__proto__", "content"]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("refuse a malformed export at each problem's path, and an event whose content cannot be read", () => {
    expect(decodeOtlpLogsJsonValue({ resourceSpans: [] })).toEqual({
      ok: false,
      issues: [{ path: "", message: "an OTLP logs export must be a JSON object with `resourceLogs`" }],
    });
    const bad = {
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                { traceId: "xyz", spanId: FIRST_CHAT, body: { stringValue: 3 } },
                { eventName: 7, timeUnixNano: "-1" },
                "a record",
              ],
            },
          ],
        },
      ],
    };
    expect(decodeOtlpLogsJsonValue(bad)).toEqual({
      ok: false,
      issues: [
        { path: "resourceLogs[0].scopeLogs[0].logRecords[0].traceId", message: "must be 32 hex digits (16 bytes)" },
        {
          path: "resourceLogs[0].scopeLogs[0].logRecords[0].body.stringValue",
          message: "has the wrong type (number)",
        },
        {
          path: "resourceLogs[0].scopeLogs[0].logRecords[1].timeUnixNano",
          message: "must be a non-negative integer of nanoseconds (a decimal string)",
        },
        { path: "resourceLogs[0].scopeLogs[0].logRecords[1].eventName", message: "must be a string" },
        { path: "resourceLogs[0].scopeLogs[0].logRecords[2]", message: "must be an object (LogRecord)" },
      ],
    });
    expect(decodeOtlpLogsProtobuf(new Uint8Array([0x0a, 0xff]))).toEqual({
      ok: false,
      issues: [
        {
          path: "",
          message: "the body is not a protobuf ExportLogsServiceRequest: index out of range: 2 + 1 > 2",
        },
      ],
    });
    const unreadable = logRecord(CONCIERGE_TRACE, FIRST_CHAT, 1, "gen_ai.user.message", "{not json");
    const decoded = decodeOtlpLogsJson(JsonLogsSerializer.serializeRequest([unreadable])!);
    if (!decoded.ok) throw new Error(JSON.stringify(decoded.issues));
    expect(genAiLogEvents(decoded.records)).toEqual({
      ok: false,
      issues: [
        {
          path: "resourceLogs[0].scopeLogs[0].logRecords[0]",
          message:
            "gen_ai.user.message: gen_ai.event.content is not valid JSON (Expected property name or '}' in JSON at position 1)",
        },
      ],
    });
  });
});
