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

  it("lets the proxy hand a route one byte past the import limit, at the default and when the limit is set", async () => {
    const config = async () => {
      vi.resetModules();
      // By its URL: the config is plain JavaScript, with no types to resolve.
      return (await import(new URL("../../next.config.js", import.meta.url).href)) as {
        MAX_BODY_BYTES: number;
        default: { experimental: { proxyClientMaxBodySize: number } };
      };
    };
    let loaded = await config();
    expect(loaded.MAX_BODY_BYTES).toBe(env().BRANCHPOINT_MAX_BODY_BYTES);
    expect(loaded.default.experimental.proxyClientMaxBodySize).toBe(env().BRANCHPOINT_MAX_BODY_BYTES + 1);

    vi.stubEnv("BRANCHPOINT_MAX_BODY_BYTES", "52428800");
    resetEnvCache();
    loaded = await config();
    expect(env().BRANCHPOINT_MAX_BODY_BYTES).toBe(52_428_800);
    expect(loaded.default.experimental.proxyClientMaxBodySize).toBe(52_428_801);
  });
});
