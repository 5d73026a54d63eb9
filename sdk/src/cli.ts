#!/usr/bin/env node
/**
 * `branchpoint replay <sessionId> --policy <file|id> -- <command…>`: creates an agent-driven replay of a
 * recorded session, runs the agent's command pointed at it (model base URLs, the replay's token), finishes
 * the replay with the command's outcome and prints the comparison's URL. Exits with the command's code, or
 * 2 when the replay could not be started or finished (with one line saying why; no stack trace).
 */
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Command, CommanderError } from "commander";
import {
  AgentReplayClient,
  BranchpointApiError,
  BranchpointConnectionError,
  createAgentReplay,
  request,
  type CreateAgentReplayInput,
} from "./client.js";
import { isMain } from "./is-main.js";
import { finishBody, runCommand } from "./run-command.js";

export const VERSION = "0.1.0";
const DEFAULT_URL = "http://127.0.0.1:3000";

export interface ReplayArgs {
  sessionId: string;
  policy: string;
  url: string;
  apiKey: string;
  capabilities: string[];
  command: string[];
}

/** A mistake in how the CLI was called or what it was pointed at: printed as one line, exit 2. */
export class CliError extends Error {
  override name = "CliError";
}

/** Parses `replay …` arguments (without `node cli.js`); throws CliError with the words to print. */
export function parseReplayArgs(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
): ReplayArgs {
  let parsed: ReplayArgs | undefined;
  const program = new Command("branchpoint")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: (s) => process.stdout.write(s) });
  program
    .command("replay")
    .description("Re-run your own agent against a recorded session as an agent-driven branch.")
    .argument("<sessionId>", "the recorded session to replay")
    .argument("[command...]", "the agent's command, after --")
    .requiredOption("--policy <file|id>", "a policy JSON file, or a saved policy's (or policy version's) id")
    .option("--url <url>", "the dashboard's URL (default: BRANCHPOINT_URL or http://127.0.0.1:3000)")
    .option("--api-key <key>", "a Branchpoint API key (default: BRANCHPOINT_API_KEY)")
    .option(
      "--capabilities <list>",
      "what the agent's adapter declares, comma-separated ('' for none)",
      "tool_policies",
    )
    .exitOverride()
    .configureOutput({ writeErr: () => {} })
    .action((sessionId: string, command: string[], options: Record<string, string | undefined>) => {
      const url = options.url ?? env.BRANCHPOINT_URL ?? DEFAULT_URL;
      const apiKey = options.apiKey ?? env.BRANCHPOINT_API_KEY ?? "";
      if (command.length === 0)
        throw new CliError(
          "Give the agent's command after --: branchpoint replay <sessionId> --policy <p> -- node agent.js",
        );
      if (!apiKey)
        throw new CliError("No API key: pass --api-key or set BRANCHPOINT_API_KEY (make one at /settings/api-keys).");
      try {
        new URL(url);
      } catch {
        throw new CliError(`--url ${JSON.stringify(url)} is not a URL (for example http://127.0.0.1:3000).`);
      }
      const capabilities = (options.capabilities ?? "")
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean);
      parsed = { sessionId, policy: options.policy!, url: url.replace(/\/+$/, ""), apiKey, capabilities, command };
    });
  try {
    program.parse(argv, { from: "user" });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.version" || error.code === "commander.helpDisplayed") throw error;
      throw new CliError(error.message.replace(/^error: /, "").replace(/\s*\n\s*/g, " "));
    }
    throw error;
  }
  if (!parsed) throw new CliError("Usage: branchpoint replay <sessionId> --policy <file|id> -- <command…>");
  return parsed;
}

/** `--policy`: a JSON file's document, or a saved policy (its newest version) / policy version id. */
export async function resolvePolicy(
  args: Pick<ReplayArgs, "policy" | "url" | "apiKey">,
): Promise<Pick<CreateAgentReplayInput, "policy" | "policyVersionId">> {
  const isFile = await stat(args.policy).then(
    (s) => s.isFile(),
    () => false,
  );
  if (isFile) {
    const text = await readFile(args.policy, "utf8");
    try {
      return { policy: JSON.parse(text) as unknown };
    } catch (error) {
      throw new CliError(`The policy file ${args.policy} is not JSON: ${(error as Error).message}`);
    }
  }
  if (/[/\\]|\.json$/i.test(args.policy)) throw new CliError(`No policy file at ${args.policy}.`);
  // A saved policy's id: replay its newest version. Anything else is sent as a policy version's id.
  const url = `${args.url}/api/v1/policies/${encodeURIComponent(args.policy)}`;
  const response = await request(fetch, url, { headers: { authorization: `Bearer ${args.apiKey}` } });
  if (response.ok) {
    const body = (await response.json()) as { policy?: { versions?: { id: string }[] } };
    const newest = body.policy?.versions?.[0]?.id;
    if (newest) return { policyVersionId: newest };
  }
  if (response.status === 401) throw new BranchpointApiError(401, "unauthorized", "unauthorized", url);
  return { policyVersionId: args.policy };
}

/** One line a user can act on for an error of the CLI's own (not the agent's). */
export function describeError(error: unknown, args?: Pick<ReplayArgs, "url" | "sessionId">): string {
  if (error instanceof CliError) return error.message;
  if (error instanceof BranchpointConnectionError) return error.message;
  if (error instanceof BranchpointApiError) {
    if (error.status === 401)
      return `The API key was refused by ${args?.url ?? "the server"}: pass --api-key or set BRANCHPOINT_API_KEY to a key from /settings/api-keys.`;
    if (error.status === 403)
      return `The API key may not start replays (${error.message}): use an analyst's or admin's key.`;
    if (error.status === 404 && args && /session/i.test(error.message))
      return `No session ${args.sessionId} on ${args.url}: ${error.message}`;
    return `${error.message} (${error.status} ${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The replay's base URL the agent's environment gets: `{origin}/api/v1/replays/{id}`. */
export function replayBaseUrl(toolCallsUrl: string): string {
  return toolCallsUrl.replace(/\/agent\/tool-calls\/?$/, "");
}

async function replay(args: ReplayArgs): Promise<number> {
  const policy = await resolvePolicy(args);
  const created = await createAgentReplay(args.url, args.apiKey, {
    sessionId: args.sessionId,
    ...policy,
    agent: {
      adapter: "branchpoint-cli",
      version: VERSION,
      command: args.command.join(" "),
      capabilities: args.capabilities,
    },
  } as CreateAgentReplayInput);
  const { replay, agent } = created;
  process.stderr.write(`branchpoint: replay ${replay.id} started; running ${args.command.join(" ")}\n`);
  const dir = await mkdtemp(path.join(tmpdir(), "branchpoint-"));
  const finalOutputFile = path.join(dir, "final-output");
  try {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      OPENAI_BASE_URL: agent.openaiBaseUrl,
      OPENAI_API_KEY: agent.token,
      ANTHROPIC_BASE_URL: agent.anthropicBaseUrl,
      ANTHROPIC_API_KEY: agent.token,
      BRANCHPOINT_REPLAY_URL: replayBaseUrl(agent.toolCallsUrl),
      BRANCHPOINT_REPLAY_TOKEN: agent.token,
      BRANCHPOINT_MCP_URL: agent.mcpUrl,
      BRANCHPOINT_FINAL_OUTPUT_FILE: finalOutputFile,
    };
    // The agent gets the replay's token, never the key that can read and start everything.
    delete env.BRANCHPOINT_API_KEY;
    const outcome = await runCommand(args.command, env);
    const client = AgentReplayClient.fromCreated(created);
    try {
      await client.finish(await finishBody(outcome, finalOutputFile));
    } catch (error) {
      // The agent may finish the replay itself (the client's finish()): then its token is closed, which is fine.
      const finishedByAgent =
        error instanceof BranchpointApiError && error.status === 403 && / is (completed|failed)/.test(error.message);
      if (!finishedByAgent) {
        process.stderr.write(`branchpoint: could not finish replay ${replay.id}: ${describeError(error, args)}\n`);
        return outcome.code === 0 ? 2 : outcome.code;
      }
    }
    if (outcome.spawnError) process.stderr.write(`branchpoint: ${outcome.spawnError}\n`);
    process.stderr.write(`branchpoint: compare: ${args.url}/replays/${replay.id}/compare\n`);
    return outcome.code;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function main(argv: readonly string[]): Promise<number> {
  let args: ReplayArgs | undefined;
  try {
    args = parseReplayArgs(argv);
    return await replay(args);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`branchpoint: ${describeError(error, args)}\n`);
    return 2;
  }
}

if (isMain(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`branchpoint: ${String(error)}\n`);
      process.exit(2);
    },
  );
}
