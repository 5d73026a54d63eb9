/**
 * Helpers for the job tests and the cohort bench: a cohort generated from a
 * demo session with varied arguments, a fake customer tool on 127.0.0.1 that
 * counts the calls it gets (and can hold one, to kill a worker in the middle
 * of it), and worker processes to start and kill. Never used by the app.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Db } from "@/lib/db/client";
import { saveImportedSessions } from "@/lib/db/session-save";
import { importDocument } from "@/lib/ingest";
import type { Policy } from "@/lib/replay";

const REFUND_DOC = path.join(process.cwd(), "prisma", "seed", "native", "refund-agent.json");

/**
 * `count` copies of the demo refund session, each with its own order number
 * (`firstOrder + k`) everywhere it appears (messages, arguments, results), as
 * sessions of one agent version. Returns the agent version and the order numbers.
 */
export async function generateRefundCohort(
  prisma: Db,
  count: number,
  opts: { firstOrder?: number; version?: string } = {},
): Promise<{ agentVersionId: string; orders: string[] }> {
  const text = readFileSync(REFUND_DOC, "utf8");
  const first = opts.firstOrder ?? 100_000;
  const version = opts.version ?? "cohort-1";
  const orders: string[] = [];
  for (let start = 0; start < count; start += 250) {
    const docs: unknown[] = [];
    for (let k = start; k < Math.min(count, start + 250); k++) {
      const order = String(first + k);
      orders.push(order);
      const doc = JSON.parse(text.replaceAll("4821", order)) as Record<string, unknown>;
      doc.externalId = `cohort:${version}:${order}`;
      doc.agentVersion = { ...(doc.agentVersion as object), version };
      docs.push(doc);
    }
    const result = importDocument(JSON.stringify(docs), { filename: "cohort.json" });
    if (!result.ok) throw new Error(`cohort does not import: ${JSON.stringify(result.issues.slice(0, 3))}`);
    await saveImportedSessions(prisma, result.sessions);
  }
  const session = await prisma.session.findFirstOrThrow({
    where: { externalId: `cohort:${version}:${orders[0]}` },
    select: { agentVersionId: true },
  });
  return { agentVersionId: session.agentVersionId, orders };
}

/** Every tool answered from the recording, except `lookup_order`, which runs live (it is read-only). */
export const LIVE_LOOKUP: Policy = {
  model: "recorded-only",
  drift: "continue_to_terminal",
  tools: {
    default: { type: "history", scope: "baseline", on_miss: "fail" },
    overrides: { lookup_order: { type: "passthrough" } },
  },
};

export interface ToolHit {
  tool: string;
  order: string | null;
  answered: boolean;
}

/**
 * A fake customer tool endpoint. `hold(hit)` returning true keeps that request
 * unanswered (a worker is killed while it waits) until `releaseHeld()`.
 */
export async function countingToolServer(opts: { delayMs?: number; hold?: (hit: ToolHit) => boolean } = {}) {
  const hits: ToolHit[] = [];
  const held: { res: ServerResponse; hit: ToolHit }[] = [];
  const answer = (res: ServerResponse, hit: ToolHit) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ output: { order_id: hit.order, status: "delivered", live: true } }), () => {
      hit.answered = true;
    });
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const parsed = JSON.parse(body) as { tool: string; args: { order_id?: string } };
      const hit: ToolHit = { tool: parsed.tool, order: parsed.args?.order_id ?? null, answered: false };
      hits.push(hit);
      if (opts.hold?.(hit)) {
        held.push({ res, hit });
        return;
      }
      setTimeout(() => answer(res, hit), opts.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    hits,
    port,
    url: `http://127.0.0.1:${port}/tools`,
    /** How many requests are held unanswered now. */
    heldCount: () => held.length,
    /** Answers the held requests now. */
    releaseHeld: () => {
      for (const { res, hit } of held.splice(0)) answer(res, hit);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const { res } of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Points `tool` at the fake endpoint (read-only) and allows its host. */
export async function configureLiveTool(prisma: Db, tool: string, url: string): Promise<void> {
  await prisma.toolEndpoint.upsert({
    where: { toolName: tool },
    create: { toolName: tool, url, timeoutMs: 30_000, readOnly: true },
    update: { url, timeoutMs: 30_000, readOnly: true },
  });
  await prisma.allowedHost.upsert({ where: { host: "127.0.0.1" }, create: { host: "127.0.0.1" }, update: {} });
}

/** A process started with `tsx`, with its output kept for the failure message. */
export interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  kill9(): Promise<void>;
  /** Resolves when its output has a line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

export function startTsx(
  script: string,
  args: string[],
  env: Record<string, string>,
  /** The command line that runs node with these arguments (a benchmark runs it under valgrind). */
  launch: (nodeArgs: string[]) => string[] = (nodeArgs) => [process.execPath, ...nodeArgs],
): Proc {
  // `node --import tsx`, not the tsx command: that one runs the script in a second process, which a kill would miss.
  const [command, ...rest] = launch(["--import", "tsx", script, ...args]);
  const child = spawn(command!, rest, {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners: (() => void)[] = [];
  const onData = (c: Buffer) => {
    out += c.toString();
    for (const l of [...listeners]) l();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    async kill9() {
      child.kill("SIGKILL");
      await exited;
    },
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(out)) {
            clearTimeout(timer);
            listeners.splice(listeners.indexOf(check), 1);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          listeners.splice(listeners.indexOf(check), 1);
          reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; output:\n${out}`));
        }, timeoutMs);
        listeners.push(check);
        check();
        void exited.then(() => {
          if (!pattern.test(out)) {
            clearTimeout(timer);
            reject(new Error(`process exited before printing ${pattern}; output:\n${out}`));
          }
        });
      });
    },
  };
}

/** Polls until `done()` is true (a real condition, checked against the database), or fails naming `what`. */
export async function eventually(what: string, done: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
