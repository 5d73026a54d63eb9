import { afterEach, describe, expect, it, vi } from "vitest";
import { resetEnvCache, env } from "@/lib/env";
import { readBodyBytes } from "./api";

/** A request whose body stream gives `sent` bytes while its Content-Length says `declared`. */
function request(sent: number, declared: number): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(sent).fill(0x20));
      controller.close();
    },
  });
  return new Request("http://127.0.0.1/api/v1/sessions", {
    method: "POST",
    body,
    headers: { "content-length": String(declared) },
    duplex: "half",
  } as RequestInit);
}

/** A chunked request (no Content-Length) of `pieces` whose stream, if `fail` is given, then errors as an aborted upload does. */
function streamed(pieces: number[], fail?: Error): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const n of pieces) controller.enqueue(new Uint8Array(n).fill(0x20));
      if (fail) controller.error(fail);
      else controller.close();
    },
  });
  return new Request("http://127.0.0.1/api/v1/sessions", { method: "POST", body, duplex: "half" } as RequestInit);
}

afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvCache();
});

describe("reading a request body", () => {
  it("gives the whole body when it is as long as it says", async () => {
    expect((await readBodyBytes(request(1000, 1000))).byteLength).toBe(1000);
  });

  it("refuses a body cut short of its Content-Length instead of reading what arrived", async () => {
    await expect(readBodyBytes(request(1000, 1200))).rejects.toMatchObject({
      code: "invalid_input",
      message: "The body ended after 1000 of the 1200 bytes its Content-Length declares; nothing was read from it.",
    });
  });

  it("counts a chunked body itself and refuses it past the limit, naming the limit", async () => {
    vi.stubEnv("BRANCHPOINT_MAX_BODY_BYTES", "1000");
    resetEnvCache();
    expect((await readBodyBytes(streamed([600, 400]))).byteLength).toBe(1000);
    await expect(readBodyBytes(streamed([600, 401]))).rejects.toMatchObject({
      code: "payload_too_large",
      message: "The body is over the limit of 1000 bytes (BRANCHPOINT_MAX_BODY_BYTES).",
    });
  });

  it("answers an upload the client gave up on as a 400, not an unexpected error", async () => {
    const aborted = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
    await expect(readBodyBytes(streamed([500], aborted))).rejects.toMatchObject({
      code: "invalid_input",
      message:
        "The body ended before it was complete (the connection was closed mid-upload); nothing was read from it.",
    });
  });

  it("has the proxy keep 1 MiB past the import limit, so a body it cuts still reads as too large, at the default and when set", async () => {
    const config = async () => {
      vi.resetModules();
      // By its URL: the config is plain JavaScript, with no types to resolve.
      return (await import(new URL("../../next.config.js", import.meta.url).href)) as {
        MAX_BODY_BYTES: number;
        PROXY_BODY_SLACK: number;
        default: { experimental: { proxyClientMaxBodySize: number; serverActions: { bodySizeLimit: number } } };
      };
    };
    let loaded = await config();
    expect(loaded.MAX_BODY_BYTES).toBe(env().BRANCHPOINT_MAX_BODY_BYTES);
    // Node hands over a connection's bytes at most 64 KiB at a time; the proxy drops the whole piece that crosses its mark.
    expect(loaded.PROXY_BODY_SLACK).toBe(1024 * 1024);
    expect(loaded.default.experimental.proxyClientMaxBodySize).toBe(env().BRANCHPOINT_MAX_BODY_BYTES + 1024 * 1024);
    expect(loaded.default.experimental.serverActions.bodySizeLimit).toBe(env().BRANCHPOINT_MAX_BODY_BYTES);

    vi.stubEnv("BRANCHPOINT_MAX_BODY_BYTES", "52428800");
    resetEnvCache();
    loaded = await config();
    expect(env().BRANCHPOINT_MAX_BODY_BYTES).toBe(52_428_800);
    expect(loaded.default.experimental.proxyClientMaxBodySize).toBe(52_428_800 + 1024 * 1024);
  });
});
