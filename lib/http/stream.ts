/**
 * Streamed JSON answers. A document too large to hold (a long session with
 * every model input whole) is sent as its pieces of text are made, a chunk of
 * about CHUNK_CHARS at a time, and made only as fast as the client reads
 * (the stream pulls the next chunk when the one before has gone).
 *
 * Errors: the first chunk is made BEFORE answering, so that whatever fails
 * there (the session missing, the first window unreadable) still gets its
 * JSON error answer and status. Once the first byte is sent the status (200,
 * or the one the caller gave) cannot change: a failure after it is logged and aborts the body
 * (the connection is ended without the chunked encoding's last chunk), so a
 * client sees a broken transfer, never a document that parses.
 */

/** About how many characters one chunk of the body holds. */
export const CHUNK_CHARS = 64 * 1024;

type Piece = { text: string; done: boolean };

/** A JSON answer (200 unless told) streamed from its pieces; rejects with the error of its first chunk. */
export async function streamedJson(
  pieces: AsyncIterable<string>,
  opts: {
    where: string;
    headers?: Record<string, string>;
    chunkChars?: number;
    status?: number;
    /** Awaited once the first chunk is made, before answering: what it throws rejects, as the first chunk's errors do. */
    beforeFirstByte?: () => Promise<void>;
  },
): Promise<Response> {
  const chunkChars = opts.chunkChars ?? CHUNK_CHARS;
  const iterator = pieces[Symbol.asyncIterator]();
  const take = async (): Promise<Piece> => {
    let text = "";
    while (text.length < chunkChars) {
      const next = await iterator.next();
      if (next.done) return { text, done: true };
      text += next.value;
    }
    return { text, done: false };
  };
  let ready: Piece | null;
  try {
    ready = await take();
    await opts.beforeFirstByte?.();
  } catch (error) {
    await iterator.return?.();
    throw error;
  }
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const piece = ready ?? (await take());
          ready = null;
          if (piece.text !== "") controller.enqueue(encoder.encode(piece.text));
          if (piece.done) controller.close();
        } catch (error) {
          console.error(`Streamed answer of ${opts.where} failed after its first byte; the body is cut:`, error);
          controller.error(error);
          await iterator.return?.();
        }
      },
      async cancel() {
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: opts.status ?? 200,
    headers: { "content-type": "application/json", ...opts.headers },
  });
}
