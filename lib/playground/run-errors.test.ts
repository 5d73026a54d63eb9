import { describe, expect, it } from "vitest";
import { runFailure } from "./run-errors";

describe("a refused playground run in words", () => {
  it("tells refused, timed out and not allowed apart by the executor's code, keeping the server's message", () => {
    const of = (code: string, kind: string) =>
      runFailure({ code, message: "m", issues: [{ path: "endpointId", message: kind }] }).title;
    expect(of("run_failed", "http_error")).toBe("The endpoint refused the call");
    expect(of("run_failed", "timeout")).toBe("The endpoint did not answer in time");
    expect(of("executor_missing", "host_not_allowed")).toBe(
      "Not allowed: the endpoint's host is not on the allow-list",
    );
    expect(runFailure({ code: "run_failed", message: "m", issues: [] })).toEqual({
      title: "The run failed",
      message: "m",
      details: [],
    });
  });

  it("lists the fields bad input names", () => {
    expect(
      runFailure({
        code: "invalid_input",
        message: "Some fields are not valid.",
        issues: [{ path: "request.messages[0].role", message: "Invalid option" }],
      }),
    ).toEqual({
      title: "The request was not sent",
      message: "Some fields are not valid.",
      details: ["request.messages[0].role: Invalid option"],
    });
    expect(runFailure({ code: "forbidden", message: "needs analyst", issues: [] }).title).toBe("Not allowed");
  });
});
