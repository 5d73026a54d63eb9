import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { env } from "@/lib/env";
import { AppError, errorBody, STATUS } from "@/lib/errors";
import { readChunk, toAppError } from "./api";
import type { ByteSource } from "@/lib/server/ingest/stream-import";

/** How much of an over-limit body is read and dropped so that its client gets the answer (see spoolBody). */
const DRAIN_BYTES = 64 * 1024 * 1024;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, max: number): Promise<void> {
  let dropped = 0;
  try {
    while (dropped <= max) {
      const next = await reader.read();
      if (next.done) return;
      dropped += next.value.byteLength;
    }
  } catch {
    // The client went away: there is no one to answer.
  }
}

/** A request body kept in a temporary file: read as often as the import needs, removed by `dispose`. */
export type SpooledBody = ByteSource & { dispose(): Promise<void> };

/**
 * Reads an import's body into a temporary file, counting what arrives against `limit` (named by `setting` in
 * the 413): the import then reads the file as a stream, twice, without holding the body in memory, and never
 * holds the database while a slow client is still sending. Also refuses a body cut short of its Content-Length.
 */
export async function spoolBody(request: Request, limit: number, setting: string): Promise<SpooledBody> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = (what: string) =>
    new AppError("payload_too_large", `${what}; the limit for imported files is ${limit} bytes (${setting}).`);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(`The body is ${declared} bytes`);
  const dir = await mkdtemp(path.join(tmpdir(), "branchpoint-import-"));
  const file = path.join(dir, `${randomBytes(8).toString("hex")}.body`);
  const dispose = () => rm(dir, { recursive: true, force: true });
  let size = 0;
  try {
    const handle = await open(file, "w");
    try {
      if (request.body) {
        const reader = request.body.getReader();
        for (;;) {
          const next = await readChunk(reader);
          if (next.done) break;
          size += next.value.byteLength;
          if (size > limit) {
            // These routes are not behind proxy.ts, so nothing has read the rest of the body: read and drop up to
            // DRAIN_BYTES more before answering, so that a client still sending gets the 413 rather than a reset
            // connection; past that, release the stream (the connection is then cut).
            await drain(reader, DRAIN_BYTES);
            await reader.cancel().catch(() => {});
            throw new AppError(
              "payload_too_large",
              `The body is over the limit of ${limit} bytes for imported files (${setting}).`,
            );
          }
          await handle.write(next.value);
        }
      }
    } finally {
      await handle.close();
    }
    if (Number.isFinite(declared) && size !== declared) {
      throw new AppError(
        "invalid_input",
        `The body ended after ${size} of the ${declared} bytes its Content-Length declares; nothing was read from it.`,
      );
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    size,
    chunks: () => createReadStream(file, { highWaterMark: 1 << 20 }),
    dispose,
  };
}

/** Runs `work` on the import's body spooled within BRANCHPOINT_MAX_IMPORT_BYTES; the file is removed after. */
export async function withSpooledImport<T>(request: Request, work: (body: SpooledBody) => Promise<T>): Promise<T> {
  const body = await spoolImport(request);
  try {
    return await work(body);
  } finally {
    await body.dispose();
  }
}

/** The import's body spooled within BRANCHPOINT_MAX_IMPORT_BYTES (the caller disposes of it). */
export function spoolImport(request: Request): Promise<SpooledBody> {
  return spoolBody(request, env().BRANCHPOINT_MAX_IMPORT_BYTES, "BRANCHPOINT_MAX_IMPORT_BYTES");
}

/**
 * An answer streamed as JSON Lines while `work` runs: `{"progress":{…}}` each time it reports, then its result
 * as the last line with the status it would have had (`{"status":201,…}`; a failure as `{"status":4xx,"error"}`).
 * The status line is 200: it went out before the work was done. `cleanup` runs once the work has ended.
 */
export function progressAnswer(
  work: (onProgress: (progress: { events: number }) => void) => Promise<{ status: number; json: object }>,
  cleanup: () => Promise<void>,
): Response {
  const encoder = new TextEncoder();
  const line = (value: unknown) => encoder.encode(`${JSON.stringify(value)}\n`);
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        const { status, json } = await work((progress) => controller.enqueue(line({ progress })));
        controller.enqueue(line({ status, ...json }));
      } catch (error) {
        const e = toAppError(error, "an import's progress answer");
        controller.enqueue(line({ status: STATUS[e.code], ...errorBody(e.code, e.message, e.issues) }));
      } finally {
        await cleanup().catch(() => {});
      }
      controller.close();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store" },
  });
}
