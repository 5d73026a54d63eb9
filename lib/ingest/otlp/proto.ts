import protobuf from "protobufjs/light.js";

// The messages of opentelemetry-proto (Apache-2.0) that an OTLP/HTTP trace
// export carries, as a protobufjs JSON descriptor: `ExportTraceServiceRequest`
// (opentelemetry/proto/collector/trace/v1/trace_service.proto) and what it
// contains (trace/v1/trace.proto, common/v1/common.proto,
// resource/v1/resource.proto). Field numbers and types are the .proto files'
// own; names are lowerCamelCase, as the OTLP JSON encoding spells them.
// Fields added for profiles only (`*_strindex`) and `Resource.entity_refs` are
// left out: protobuf skips unknown fields, so payloads that carry them decode.

/**
 * The three messages every signal's export wraps its records in, alike but for their names: the request (its
 * records by resource, `resource<Signal>`), one resource's (by instrumentation scope, `scope<Signal>`) and one
 * scope's, whose `records` field holds the signal's own message.
 */
function exportEnvelope(request: string, signal: string, records: string, recordType: string) {
  return {
    [request]: {
      fields: { [`resource${signal}`]: { rule: "repeated", type: `Resource${signal}`, id: 1 } },
    },
    [`Resource${signal}`]: {
      fields: {
        resource: { type: "Resource", id: 1 },
        [`scope${signal}`]: { rule: "repeated", type: `Scope${signal}`, id: 2 },
        schemaUrl: { type: "string", id: 3 },
      },
    },
    [`Scope${signal}`]: {
      fields: {
        scope: { type: "InstrumentationScope", id: 1 },
        [records]: { rule: "repeated", type: recordType, id: 2 },
        schemaUrl: { type: "string", id: 3 },
      },
    },
  };
}

const descriptor = {
  nested: {
    ...exportEnvelope("ExportTraceServiceRequest", "Spans", "spans", "Span"),
    Span: {
      fields: {
        traceId: { type: "bytes", id: 1 },
        spanId: { type: "bytes", id: 2 },
        traceState: { type: "string", id: 3 },
        parentSpanId: { type: "bytes", id: 4 },
        flags: { type: "fixed32", id: 16 },
        name: { type: "string", id: 5 },
        kind: { type: "int32", id: 6 },
        startTimeUnixNano: { type: "fixed64", id: 7 },
        endTimeUnixNano: { type: "fixed64", id: 8 },
        attributes: { rule: "repeated", type: "KeyValue", id: 9 },
        droppedAttributesCount: { type: "uint32", id: 10 },
        events: { rule: "repeated", type: "SpanEvent", id: 11 },
        droppedEventsCount: { type: "uint32", id: 12 },
        links: { rule: "repeated", type: "SpanLink", id: 13 },
        droppedLinksCount: { type: "uint32", id: 14 },
        status: { type: "Status", id: 15 },
      },
    },
    SpanEvent: {
      fields: {
        timeUnixNano: { type: "fixed64", id: 1 },
        name: { type: "string", id: 2 },
        attributes: { rule: "repeated", type: "KeyValue", id: 3 },
        droppedAttributesCount: { type: "uint32", id: 4 },
      },
    },
    SpanLink: {
      fields: {
        traceId: { type: "bytes", id: 1 },
        spanId: { type: "bytes", id: 2 },
        traceState: { type: "string", id: 3 },
        attributes: { rule: "repeated", type: "KeyValue", id: 4 },
        droppedAttributesCount: { type: "uint32", id: 5 },
        flags: { type: "fixed32", id: 6 },
      },
    },
    Status: {
      fields: { message: { type: "string", id: 2 }, code: { type: "int32", id: 3 } },
    },
    Resource: {
      fields: {
        attributes: { rule: "repeated", type: "KeyValue", id: 1 },
        droppedAttributesCount: { type: "uint32", id: 2 },
      },
    },
    InstrumentationScope: {
      fields: {
        name: { type: "string", id: 1 },
        version: { type: "string", id: 2 },
        attributes: { rule: "repeated", type: "KeyValue", id: 3 },
        droppedAttributesCount: { type: "uint32", id: 4 },
      },
    },
    // The logs export (collector/logs/v1/logs_service.proto, logs/v1/logs.proto): what /v1/logs reads.
    ...exportEnvelope("ExportLogsServiceRequest", "Logs", "logRecords", "LogRecord"),
    LogRecord: {
      fields: {
        timeUnixNano: { type: "fixed64", id: 1 },
        observedTimeUnixNano: { type: "fixed64", id: 11 },
        severityNumber: { type: "int32", id: 2 },
        severityText: { type: "string", id: 3 },
        body: { type: "AnyValue", id: 5 },
        attributes: { rule: "repeated", type: "KeyValue", id: 6 },
        droppedAttributesCount: { type: "uint32", id: 7 },
        flags: { type: "fixed32", id: 8 },
        traceId: { type: "bytes", id: 9 },
        spanId: { type: "bytes", id: 10 },
        eventName: { type: "string", id: 12 },
      },
    },
    ExportLogsServiceResponse: {
      fields: { partialSuccess: { type: "ExportLogsPartialSuccess", id: 1 } },
    },
    ExportLogsPartialSuccess: {
      fields: { rejectedLogRecords: { type: "int64", id: 1 }, errorMessage: { type: "string", id: 2 } },
    },
    KeyValue: {
      fields: { key: { type: "string", id: 1 }, value: { type: "AnyValue", id: 2 } },
    },
    AnyValue: {
      oneofs: {
        value: {
          oneof: ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"],
        },
      },
      fields: {
        stringValue: { type: "string", id: 1 },
        boolValue: { type: "bool", id: 2 },
        intValue: { type: "int64", id: 3 },
        doubleValue: { type: "double", id: 4 },
        arrayValue: { type: "ArrayValue", id: 5 },
        kvlistValue: { type: "KeyValueList", id: 6 },
        bytesValue: { type: "bytes", id: 7 },
      },
    },
    ArrayValue: {
      fields: { values: { rule: "repeated", type: "AnyValue", id: 1 } },
    },
    KeyValueList: {
      fields: { values: { rule: "repeated", type: "KeyValue", id: 1 } },
    },
  },
};

// Enums are plain int32 here: an unknown SpanKind or StatusCode then decodes
// as its number instead of failing, and the normalizer checks the range.

let root: protobuf.Root | null = null;

function lookup(name: string): protobuf.Type {
  root ??= protobuf.Root.fromJSON(descriptor);
  return root.lookupType(name);
}

/** The `ExportTraceServiceRequest` message type. */
export function exportTraceServiceRequestType(): protobuf.Type {
  return lookup("ExportTraceServiceRequest");
}

/** The `ExportLogsServiceRequest` message type. */
export function exportLogsServiceRequestType(): protobuf.Type {
  return lookup("ExportLogsServiceRequest");
}

/** The `ExportLogsServiceResponse` message type (a partial success's count and message). */
export function exportLogsServiceResponseType(): protobuf.Type {
  return lookup("ExportLogsServiceResponse");
}
