import { describe, expect, it } from "vitest";
import { BranchpointApiError, BranchpointConnectionError } from "./client";
import { CliError, describeError, parseReplayArgs, replayBaseUrl } from "./cli";
import { finishBody } from "./run-command";

const ENV = { BRANCHPOINT_API_KEY: "key-from-env" };

describe("branchpoint replay arguments", () => {
  it("reads the session, the policy, the defaults and the command after --", () => {
    expect(parseReplayArgs(["replay", "s1", "--policy", "p.json", "--", "node", "agent.js", "--verbose"], ENV)).toEqual(
      {
        sessionId: "s1",
        policy: "p.json",
        url: "http://127.0.0.1:3000",
        apiKey: "key-from-env",
        capabilities: ["tool_policies"],
        command: ["node", "agent.js", "--verbose"],
      },
    );
    const given = parseReplayArgs(
      [
        "replay",
        "s1",
        "--url",
        "https://bp.example/",
        "--api-key",
        "k",
        "--capabilities",
        "",
        "--policy",
        "pv1",
        "--",
        "a",
      ],
      { BRANCHPOINT_URL: "http://ignored", ...ENV },
    );
    expect(given).toMatchObject({ url: "https://bp.example", apiKey: "k", capabilities: [], policy: "pv1" });
    expect(
      parseReplayArgs(["replay", "s1", "--policy", "p", "--", "a"], { ...ENV, BRANCHPOINT_URL: "http://h:1" }).url,
    ).toBe("http://h:1");
  });

  it("refuses what is missing or wrong with one sentence", () => {
    const words = (argv: string[], env: Record<string, string> = ENV) => {
      try {
        parseReplayArgs(argv, env);
        return "parsed";
      } catch (error) {
        expect(error).toBeInstanceOf(CliError);
        return (error as Error).message;
      }
    };
    expect(words(["replay", "s1", "--", "a"])).toBe("required option '--policy <file|id>' not specified");
    expect(words(["replay", "--policy", "p"])).toBe("missing required argument 'sessionId'");
    expect(words(["replay", "s1", "--policy", "p"])).toBe(
      "Give the agent's command after --: branchpoint replay <sessionId> --policy <p> -- node agent.js",
    );
    expect(words(["replay", "s1", "--policy", "p", "--", "a"], {})).toBe(
      "No API key: pass --api-key or set BRANCHPOINT_API_KEY (make one at /settings/api-keys).",
    );
    expect(words(["replay", "s1", "--policy", "p", "--url", "nope", "--", "a"])).toBe(
      '--url "nope" is not a URL (for example http://127.0.0.1:3000).',
    );
    expect(words(["replay", "s1", "--policy", "p", "--bogus", "--", "a"])).toBe("unknown option '--bogus'");
    expect(words(["replay2"])).toBe("unknown command 'replay2' (Did you mean replay?)");
  });
});

describe("the CLI's words for errors", () => {
  const args = { url: "http://bp:3000", sessionId: "s9" };
  it("names a bad key, an unknown session and an unreachable server", () => {
    expect(describeError(new BranchpointApiError(401, "unauthorized", "Missing or invalid API key.", "u"), args)).toBe(
      "The API key was refused by http://bp:3000: pass --api-key or set BRANCHPOINT_API_KEY to a key from /settings/api-keys.",
    );
    expect(describeError(new BranchpointApiError(404, "not_found", "No session with id s9.", "u"), args)).toBe(
      "No session s9 on http://bp:3000: No session with id s9.",
    );
    expect(describeError(new BranchpointConnectionError("http://bp:3000/api/v1/replays", "ECONNREFUSED"), args)).toBe(
      "Cannot reach Branchpoint at http://bp:3000 (ECONNREFUSED). Is it running, and is the URL right?",
    );
    expect(describeError(new BranchpointApiError(400, "invalid_input", "policy.model: bad", "u"), args)).toBe(
      "policy.model: bad (400 invalid_input)",
    );
  });

  it("gives the agent the replay's base URL", () => {
    expect(replayBaseUrl("http://bp/api/v1/replays/r1/agent/tool-calls")).toBe("http://bp/api/v1/replays/r1");
  });
});

describe("the finish body from the command's outcome", () => {
  it("is the last stdout line on success, the exit code and stderr tail on failure", async () => {
    const none = "/nonexistent/final-output";
    expect(await finishBody({ code: 0, lastLine: "done", stderrTail: "" }, none)).toEqual({ finalOutput: "done" });
    expect(await finishBody({ code: 4, lastLine: "x", stderrTail: "Traceback: boom" }, none)).toEqual({
      error: { type: "exit_code", message: "the agent's command exited with code 4; stderr ends: Traceback: boom" },
    });
    expect(
      await finishBody({ code: 127, lastLine: "", stderrTail: "", spawnError: "command not found: nope" }, none),
    ).toEqual({
      error: { type: "exit_code", message: "command not found: nope" },
    });
  });
});
