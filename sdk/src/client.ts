/**
 * A plain-`fetch` client of Branchpoint's agent-driven replay contract: create the replay (with a
 * Branchpoint API key), then, with the replay's token, ask it about every tool call and finish it.
 * No dependency beyond the platform's `fetch`.
 */

/** What the agent says about itself when the replay is created (attached to the evidence). */
export interface AgentInfo {
  adapter?: string;
  version?: string;
  command?: string;
  /** `tool_policies`: the agent asks the tool-call endpoint before running each tool (the wrappers do). */
  capabilities?: string[];
}

/** The agent half of `POST /api/v1/replays` with `"driver": "agent"`. */
export interface AgentEndpoints {
  token: string;
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  toolCallsUrl: string;
  mcpUrl: string;
  finishUrl: string;
}

export interface CreatedAgentReplay {
  /** The replay as the server answered it (`id`, `status`, …). */
  replay: { id: string; status?: string; [key: string]: unknown };
  agent: AgentEndpoints;
}

export type CreateAgentReplayInput = {
  sessionId: string;
  agent?: AgentInfo;
} & ({ policy: unknown; policyVersionId?: undefined } | { policyVersionId: string; policy?: undefined });

/** An answer of the tool-call endpoint. */
export type ToolCallAnswer =
  | { action: "return"; source: string; output: unknown; error: unknown }
  | { action: "execute"; callId: string }
  | { action: "fail"; code: string; message: string }
  | { action: "wait"; retryAfterMs: number; waitingFor?: string };

/** Branchpoint answered an HTTP request with an error (`{ error: { code, message } }`). */
export class BranchpointApiError extends Error {
  override name = "BranchpointApiError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly url: string,
  ) {
    super(message);
  }
}

/** Branchpoint could not be reached at all (refused, DNS, reset). */
export class BranchpointConnectionError extends Error {
  override name = "BranchpointConnectionError";
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`Cannot reach Branchpoint at ${new URL(url).origin} (${reason}). Is it running, and is the URL right?`);
  }
}

/**
 * The replay refused a tool call (`action: "fail"`: the policy's `on_miss: fail`, a blocked tool, a call
 * it cannot intercept), or gave up waiting for a fixture. The agent should end with this as its error.
 */
export class ReplayToolError extends Error {
  override name = "ReplayToolError";
  constructor(
    readonly code: string,
    message: string,
    readonly tool: string,
  ) {
    super(message);
  }
}

export interface ToolCallOptions {
  /** The call's id as the model named it (matched with the recording when it can be). */
  callId?: string;
  /** Run the tool for real; called only when the policy answers `execute` (passthrough). */
  run?: () => unknown;
  /** Cancels waiting for a fixture or an approval (and the request in flight). */
  signal?: AbortSignal;
  /** Told each time the replay says to wait (for a fixture or an approval an analyst gives in the dashboard). */
  onWait?: (answer: { retryAfterMs: number; waitingFor?: string }) => void;
  /** Give up waiting for a fixture after this long (default: the client's `waitTimeoutMs`). */
  waitTimeoutMs?: number;
}

export interface AgentReplayClientOptions {
  /** The replay's agent base: `{origin}/api/v1/replays/{id}` (default: BRANCHPOINT_REPLAY_URL). */
  replayUrl?: string;
  /** The replay's token (default: BRANCHPOINT_REPLAY_TOKEN). */
  token?: string;
  /** Explicit endpoints (as `createAgentReplay` answered); they win over ones derived from `replayUrl`. */
  endpoints?: Partial<Pick<AgentEndpoints, "toolCallsUrl" | "finishUrl">>;
  /** Longest total wait for a fixture or an approval per call, in ms (default 10 minutes). */
  waitTimeoutMs?: number;
  fetch?: typeof fetch;
}

const DEFAULT_WAIT_MS = 10 * 60_000;

const stripSlash = (url: string) => url.replace(/\/+$/, "");

/** Reads `{ error: { code, message } }` from an error answer, or says what came instead. */
async function apiError(response: Response, url: string): Promise<BranchpointApiError> {
  const text = await response.text().catch(() => "");
  let code = `http_${response.status}`;
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } | string };
    if (typeof body.error === "string") message = body.error;
    else if (body.error && typeof body.error === "object") {
      if (typeof body.error.code === "string") code = body.error.code;
      if (typeof body.error.message === "string") message = body.error.message;
    }
  } catch {
    if (text.trim()) message += `: ${text.trim().slice(0, 200)}`;
  }
  return new BranchpointApiError(response.status, code, message, url);
}

/** `fetch` whose network failures become a BranchpointConnectionError naming the cause. */
export async function request(fetchFn: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetchFn(url, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new BranchpointConnectionError(url, cause?.code ?? cause?.message ?? String(error));
  }
}

async function postJson(
  fetchFn: typeof fetch,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  signal?: AbortSignal,
): Promise<{ status: number; body: unknown }> {
  const response = await request(fetchFn, url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...headers },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok) throw await apiError(response, url);
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as unknown) : null };
}

/**
 * Creates an agent-driven replay of a recorded session: `POST {baseUrl}/api/v1/replays` with
 * `"driver": "agent"`, authorized by a Branchpoint API key. Answers the replay and its agent endpoints.
 */
export async function createAgentReplay(
  baseUrl: string,
  apiKey: string,
  input: CreateAgentReplayInput,
  options: { fetch?: typeof fetch; signal?: AbortSignal } = {},
): Promise<CreatedAgentReplay> {
  const url = `${stripSlash(baseUrl)}/api/v1/replays`;
  const { body } = await postJson(
    options.fetch ?? fetch,
    url,
    { authorization: `Bearer ${apiKey}` },
    { ...input, driver: "agent" },
    options.signal,
  );
  const answer = body as Partial<CreatedAgentReplay> | null;
  if (!answer?.replay?.id || !answer.agent?.token || !answer.agent.toolCallsUrl)
    throw new BranchpointApiError(
      200,
      "unexpected_answer",
      "The server created no agent-driven replay: its answer has no agent endpoints. Is it a Branchpoint version with agent-driven replays?",
      url,
    );
  return answer as CreatedAgentReplay;
}

/** Sleeps `ms`, or rejects with the signal's reason when it aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** A tool's error as the contract carries it: `{ type?, message }`. */
export function errorBody(error: unknown): { type?: string; message: string } {
  if (error instanceof Error) return { type: error.name, message: error.message };
  if (typeof error === "string") return { message: error };
  return { message: JSON.stringify(error) ?? String(error) };
}

/** The agent's side of one replay: ask about tool calls, report passthrough results, finish. */
export class AgentReplayClient {
  readonly toolCallsUrl: string;
  readonly finishUrl: string;
  private readonly token: string;
  private readonly fetchFn: typeof fetch;
  private readonly waitTimeoutMs: number;

  constructor(options: AgentReplayClientOptions = {}) {
    const replayUrl = options.replayUrl ?? process.env.BRANCHPOINT_REPLAY_URL;
    const token = options.token ?? process.env.BRANCHPOINT_REPLAY_TOKEN;
    const toolCallsUrl = options.endpoints?.toolCallsUrl ?? (replayUrl && `${stripSlash(replayUrl)}/agent/tool-calls`);
    const finishUrl = options.endpoints?.finishUrl ?? (replayUrl && `${stripSlash(replayUrl)}/agent/finish`);
    if (!toolCallsUrl || !finishUrl)
      throw new Error(
        "No replay to talk to: set BRANCHPOINT_REPLAY_URL (the `branchpoint replay` command sets it) or pass replayUrl.",
      );
    if (!token)
      throw new Error(
        "No replay token: set BRANCHPOINT_REPLAY_TOKEN (the `branchpoint replay` command sets it) or pass token.",
      );
    this.toolCallsUrl = toolCallsUrl;
    this.finishUrl = finishUrl;
    this.token = token;
    this.fetchFn = options.fetch ?? fetch;
    this.waitTimeoutMs = options.waitTimeoutMs ?? DEFAULT_WAIT_MS;
  }

  /** A client for the replay `createAgentReplay` answered. */
  static fromCreated(created: CreatedAgentReplay, options: Omit<AgentReplayClientOptions, "token" | "endpoints"> = {}) {
    return new AgentReplayClient({ ...options, token: created.agent.token, endpoints: created.agent });
  }

  /** True when BRANCHPOINT_REPLAY_URL and BRANCHPOINT_REPLAY_TOKEN are set (the agent runs under a replay). */
  static inEnvironment(): boolean {
    return Boolean(process.env.BRANCHPOINT_REPLAY_URL && process.env.BRANCHPOINT_REPLAY_TOKEN);
  }

  private post(url: string, body: unknown, signal?: AbortSignal) {
    return postJson(this.fetchFn, url, { authorization: `Bearer ${this.token}` }, body, signal);
  }

  /** One question to the tool-call endpoint, as it answered (a 202 is `wait`). */
  async ask(tool: string, args: unknown, callId?: string, signal?: AbortSignal): Promise<ToolCallAnswer> {
    const { status, body } = await this.post(this.toolCallsUrl, { tool, args, ...(callId ? { callId } : {}) }, signal);
    const answer = body as ToolCallAnswer | null;
    if (status === 202 || answer?.action === "wait") {
      const wait = (answer ?? {}) as { retryAfterMs?: unknown; waitingFor?: unknown };
      return {
        action: "wait",
        retryAfterMs: Number(wait.retryAfterMs) || 1000,
        ...(typeof wait.waitingFor === "string" ? { waitingFor: wait.waitingFor } : {}),
      };
    }
    if (!answer || !["return", "execute", "fail"].includes(answer.action))
      throw new BranchpointApiError(
        status,
        "unexpected_answer",
        `The tool-call endpoint answered no action the client knows: ${JSON.stringify(body)?.slice(0, 200)}`,
        this.toolCallsUrl,
      );
    return answer;
  }

  /**
   * Resolves one tool call under the branch's policy: `return` gives the output (or throws the
   * recorded error), `execute` runs `options.run` and reports its result, `fail` throws a
   * ReplayToolError, `wait` retries after `retryAfterMs` until answered, cancelled or timed out.
   */
  async callTool(tool: string, args: unknown, options: ToolCallOptions = {}): Promise<unknown> {
    const deadline = Date.now() + (options.waitTimeoutMs ?? this.waitTimeoutMs);
    for (;;) {
      const answer = await this.ask(tool, args, options.callId, options.signal);
      switch (answer.action) {
        case "return":
          if (answer.error !== null && answer.error !== undefined) throw recordedError(answer.error);
          return answer.output;
        case "execute":
          return this.execute(tool, answer.callId, options);
        case "fail":
          throw new ReplayToolError(answer.code, answer.message, tool);
        case "wait": {
          options.onWait?.(answer);
          const left = deadline - Date.now();
          if (left <= 0)
            throw new ReplayToolError(
              "wait_timeout",
              `Gave up waiting for a fixture or an approval for the call of "${tool}": supply it in the dashboard and run the agent again, or raise the wait timeout.`,
              tool,
            );
          await sleep(Math.min(Math.max(answer.retryAfterMs, 50), left), options.signal);
        }
      }
    }
  }

  private async execute(tool: string, callId: string, options: ToolCallOptions): Promise<unknown> {
    if (!options.run)
      throw new ReplayToolError(
        "no_implementation",
        `The policy runs "${tool}" live (passthrough), but no function to run it was given.`,
        tool,
      );
    const resultUrl = `${stripSlash(this.toolCallsUrl)}/${encodeURIComponent(callId)}/result`;
    let output: unknown;
    try {
      output = await options.run();
    } catch (error) {
      await this.post(resultUrl, { error: errorBody(error) }, options.signal);
      throw error;
    }
    await this.post(resultUrl, { output: output === undefined ? null : output }, options.signal);
    return output;
  }

  /** Ends the replay: the agent's final output, or the error it ended with. */
  async finish(outcome: { finalOutput: unknown } | { error: { type?: string; message: string } | Error | string }) {
    const body =
      "error" in outcome
        ? {
            error:
              typeof outcome.error === "object" && !(outcome.error instanceof Error)
                ? outcome.error
                : errorBody(outcome.error),
          }
        : { finalOutput: outcome.finalOutput };
    const { body: answer } = await this.post(this.finishUrl, body);
    return answer;
  }
}

/** A recorded (or fixture) tool error, thrown to the agent as its tool would have thrown it. */
export class RecordedToolError extends Error {
  override name = "RecordedToolError";
  constructor(
    message: string,
    readonly error: unknown,
  ) {
    super(message);
  }
}

function recordedError(error: unknown): RecordedToolError {
  const message =
    typeof error === "string"
      ? error
      : error && typeof error === "object" && typeof (error as { message?: unknown }).message === "string"
        ? (error as { message: string }).message
        : JSON.stringify(error);
  return new RecordedToolError(message, error);
}
