import { NextRequest } from "next/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { proxy } from "@/proxy";
import { allowedOrigins, isAllowedOrigin } from "./origins";

describe("allowed origins", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("are the public URL's origin alone when it is set", () => {
    expect(allowedOrigins("https://rca.example.com/base/", "3000")).toEqual(["https://rca.example.com"]);
  });

  it("are this machine's names on the served port, and no other port, when it is not", () => {
    const allowed = allowedOrigins(undefined, "3999");
    expect(allowed).toEqual(["http://127.0.0.1:3999", "http://localhost:3999", "http://[::1]:3999"]);
    expect(isAllowedOrigin("http://LOCALHOST:3999", allowed)).toBe(true);
    for (const other of [
      "http://127.0.0.1:4000",
      "http://localhost",
      "https://127.0.0.1:3999",
      "null",
      "http://evil.example:3999",
    ]) {
      expect(isAllowedOrigin(other, allowed)).toBe(false);
    }
  });

  it("a server action posted from another origin is refused by the proxy with 403 and the error body", async () => {
    vi.stubEnv("PORT", "3999");
    const post = (origin: string) =>
      proxy(
        new NextRequest("http://127.0.0.1:3999/sessions", {
          method: "POST",
          headers: { host: "127.0.0.1:3999", origin, "next-action": "7f00", cookie: "better-auth.session_token=x" },
        }),
      );
    const refused = post("http://127.0.0.1:4000");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: {
        code: "forbidden",
        message: "Actions are accepted only from this dashboard's own pages, not from http://127.0.0.1:4000.",
        issues: [],
      },
    });
    // The served origin goes on to the action.
    expect(post("http://127.0.0.1:3999").headers.get("x-middleware-next")).toBe("1");
  });
});
