/**
 * Reading a large JSON input a piece at a time, so that an import holds one record (a JSONL line, one element
 * of a document's array) and never the whole text. No streaming JSON parser is among the dependencies, and
 * none is needed for the shapes that grow: JSON Lines, and a document whose bulk is an array (a chat log's
 * `messages`, a native session's `events`, a top-level array of records). The scanner finds where each piece
 * begins and ends (tracking strings, escapes and nesting, never building values); each piece is then parsed
 * by JSON.parse, which checks it, and an error inside it is reported at its line and column in the file.
 * Pure: it reads the text chunks it is given.
 */
import { hugeNumberAt, jsonDepthExcess, MAX_JSON_DEPTH } from "@/lib/hostile/json";
import { locateJsonError } from "../json";

/** A JSON input that cannot be read, at a line and column of the file (1-based). */
export class StreamSyntaxError extends Error {
  override name = "StreamSyntaxError";
  constructor(
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`malformed JSON at line ${line}, column ${column}: ${reason}`);
  }
}

/** Bytes as UTF-8 text chunks, the byte-order mark dropped; invalid UTF-8 throws InvalidUtf8 with its byte offset. */
export async function* utf8Chunks(bytes: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let first = true;
  let offset = 0;
  for await (const chunk of bytes) {
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw new InvalidUtf8(offset);
    }
    offset += chunk.byteLength;
    if (first && text.length > 0) {
      first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (text.length > 0) yield text;
  }
  try {
    const rest = decoder.decode();
    if (rest.length > 0) yield rest;
  } catch {
    throw new InvalidUtf8(offset);
  }
}

export class InvalidUtf8 extends Error {
  override name = "InvalidUtf8";
  constructor(readonly byteOffset: number) {
    super(`the file is not valid UTF-8 text (near byte ${byteOffset})`);
  }
}

/** One non-blank line of a JSON Lines input (1-based line number; a trailing \r dropped). */
export type Line = { line: number; text: string };

/** The non-blank lines of text chunks, one at a time (a line is held whole; nothing else is). */
export async function* linesOf(chunks: AsyncIterable<string>): AsyncGenerator<Line> {
  let carry: string[] = [];
  let line = 1;
  const take = (text: string): Line | null => {
    const t = text.endsWith("\r") ? text.slice(0, -1) : text;
    return t.trim() === "" ? null : { line, text: t };
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf("\n", start);
      if (nl < 0) break;
      const piece = chunk.slice(start, nl);
      const text = carry.length > 0 ? carry.join("") + piece : piece;
      carry = [];
      const out = take(text);
      if (out) yield out;
      line++;
      start = nl + 1;
    }
    if (start < chunk.length) carry.push(chunk.slice(start));
  }
  if (carry.length > 0) {
    const out = take(carry.join(""));
    if (out) yield out;
  }
}

/**
 * One piece of a document: a top-level member's whole value (`index` null), an element of a top-level member
 * that is an array (`key`, `index`), or an element of a top-level array (`key` null). Where it starts in the file.
 */
export type Piece = { key: string | null; index: number | null; text: string; line: number; column: number };

/** What a document's top level is: the pieces say the rest. */
export type Top = "object" | "array";

/** The most text one piece (a record, a message) may hold: the import holds a piece whole. */
export const MAX_PIECE_CHARS = 64 * 1024 * 1024;

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The pieces of a JSON document whose top level is an object or an array, in order. Throws StreamSyntaxError
 * for a structure that is not JSON (a piece's own content is checked where it is parsed: `parsePiece`).
 * `onTop` is told the top level before the first piece.
 */
export async function* documentPieces(
  chunks: AsyncIterable<string>,
  onTop: (top: Top) => void = () => {},
): AsyncGenerator<Piece> {
  const scanner = new PieceScanner(onTop);
  for await (const chunk of chunks) {
    // The pieces before a broken structure first: a piece left open (a missing brace) reaches far, and its own
    // parse says where it stopped being JSON, nearer the mistake than where the structure noticed.
    yield* scanner.feed(chunk);
    if (scanner.failure) throw scanner.failure;
  }
  scanner.end();
}

// Where the scan is: the structure around the pieces is a small state machine; inside a piece only strings
// and nesting are tracked, until the piece's closing delimiter at its own level.
type State =
  | "start" // before the top-level value
  | "key" // in the top object, expecting a key or '}'
  | "keyNext" // after ',' in the top object: a key is required
  | "colon"
  | "value" // after ':' (a member's value starts)
  | "elem" // after '[': an element or ']'
  | "elemNext" // after ',': an element is required
  | "afterPiece" // after a piece: ',' or the closer
  | "end";

class PieceScanner {
  private state: State = "start";
  private top: Top = "object";
  /** The current pieces are elements of a member's array. */
  private inArrayMember = false;
  private key: string | null = null;
  private index = 0;
  private line = 1;
  /** Of the character being read, once counted. */
  private column = 0;
  // The piece being read: its parts so far, and its nesting and string state.
  private parts: string[] | null = null;
  private pieceStart = 0;
  private pieceLine = 0;
  private pieceColumn = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  // A key being read (keys are strings at the top level, parsed with their escapes).
  private keyParts: string[] | null = null;
  private keyStart = 0;
  private keyEscaped = false;

  /** Why the structure is not JSON, once found (the pieces before it are given first). */
  failure: StreamSyntaxError | null = null;
  private pieceChars = 0;

  constructor(private readonly onTop: (top: Top) => void) {}

  private fail(reason: string): never {
    throw new StreamSyntaxError(this.line, this.column, reason);
  }

  feed(chunk: string): Piece[] {
    const out: Piece[] = [];
    try {
      this.scan(chunk, out);
    } catch (error) {
      if (!(error instanceof StreamSyntaxError)) throw error;
      this.failure = error;
    }
    return out;
  }

  private scan(chunk: string, out: Piece[]): void {
    if (this.parts !== null) this.pieceStart = 0;
    if (this.keyParts !== null) this.keyStart = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c === 0x0a) {
        this.line++;
        this.column = 0;
      } else this.column++;
      if (this.keyParts !== null) this.readKey(chunk, i, c);
      else if (this.parts !== null) {
        if (this.readPiece(c)) {
          out.push(this.endPiece(chunk, i));
          i--; // the delimiter is read again by the structure
          this.column--;
        }
      } else if (!WS(c)) this.structure(chunk, i, c);
    }
    if (this.parts !== null) {
      this.parts.push(chunk.slice(this.pieceStart));
      this.pieceChars += chunk.length - this.pieceStart;
      if (this.pieceChars > MAX_PIECE_CHARS)
        throw new StreamSyntaxError(
          this.pieceLine,
          this.pieceColumn,
          `the record that starts here is over ${MAX_PIECE_CHARS / (1 << 20)} MB of text (is an object or array left open?)`,
        );
    }
    if (this.keyParts !== null) this.keyParts.push(chunk.slice(this.keyStart));
  }

  end(): void {
    if (this.state !== "end" || this.parts !== null || this.keyParts !== null)
      this.fail("the text ends before the JSON does (was the file cut short?)");
  }

  private readKey(chunk: string, i: number, c: number) {
    if (this.keyEscaped) this.keyEscaped = false;
    else if (c === 0x5c) this.keyEscaped = true;
    else if (c === 0x22) {
      this.keyParts!.push(chunk.slice(this.keyStart, i + 1));
      const raw = this.keyParts!.join("");
      this.keyParts = null;
      try {
        this.key = JSON.parse(raw) as string;
      } catch {
        this.fail("a property name that is not a valid JSON string");
      }
      this.state = "colon";
    } else if (c < 0x20) this.fail("control character in a property name (escape it)");
  }

  /** Inside a piece: true at its end (',' or the closer at its own level, not part of it). */
  private readPiece(c: number): boolean {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === 0x5c) this.escaped = true;
      else if (c === 0x22) this.inString = false;
      return false;
    }
    if (c === 0x22) this.inString = true;
    else if (c === 0x7b || c === 0x5b) this.depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (this.depth === 0) return true;
      this.depth--;
    } else if (c === 0x2c && this.depth === 0) return true;
    return false;
  }

  private structure(chunk: string, i: number, c: number) {
    const describe = JSON.stringify(String.fromCharCode(c));
    const inArray = this.top === "array" || this.inArrayMember;
    switch (this.state) {
      case "start":
        if (c === 0x7b) {
          this.top = "object";
          this.state = "key";
        } else if (c === 0x5b) {
          this.top = "array";
          this.key = null;
          this.index = 0;
          this.state = "elem";
        } else this.fail(`expected a JSON object or array, found ${describe}`);
        this.onTop(this.top);
        return;
      case "key":
      case "keyNext":
        if (c === 0x22) {
          this.keyParts = [];
          this.keyStart = i;
        } else if (c === 0x7d && this.state === "key") this.state = "end";
        else this.fail(`expected a property name in double quotes, found ${describe}`);
        return;
      case "colon":
        if (c !== 0x3a) this.fail(`expected ':' after the property name, found ${describe}`);
        this.state = "value";
        return;
      case "value":
        if (c === 0x5b) {
          this.inArrayMember = true;
          this.index = 0;
          this.state = "elem";
        } else {
          this.inArrayMember = false;
          this.startPiece(chunk, i, c);
        }
        return;
      case "elem":
      case "elemNext":
        if (c === 0x5d && this.state === "elem") this.closeArray();
        else this.startPiece(chunk, i, c);
        return;
      case "afterPiece":
        if (c === 0x2c) this.state = inArray ? "elemNext" : "keyNext";
        else if (c === 0x5d && inArray) this.closeArray();
        else if (c === 0x7d && !inArray) this.state = "end";
        else
          this.fail(
            inArray
              ? `expected ',' or ']' in an array, found ${describe}`
              : `expected ',' or '}' in an object, found ${describe}`,
          );
        return;
      case "end":
        this.fail(`unexpected ${describe} after the end of the JSON value`);
    }
  }

  private startPiece(chunk: string, i: number, c: number) {
    this.parts = [];
    this.pieceChars = 0;
    this.pieceStart = i;
    this.pieceLine = this.line;
    this.pieceColumn = this.column;
    // The piece's first character: a string opens, a container is one level deep.
    this.inString = c === 0x22;
    this.escaped = false;
    this.depth = c === 0x7b || c === 0x5b ? 1 : 0;
    this.state = "afterPiece";
  }

  private endPiece(chunk: string, i: number): Piece {
    this.parts!.push(chunk.slice(this.pieceStart, i));
    const text = this.parts!.join("").trimEnd();
    this.parts = null;
    return {
      key: this.top === "object" ? this.key : null,
      index: this.top === "array" || this.inArrayMember ? this.index++ : null,
      text,
      line: this.pieceLine,
      column: this.pieceColumn,
    };
  }

  private closeArray() {
    if (this.top === "array" && !this.inArrayMember) this.state = "end";
    else {
      this.inArrayMember = false;
      this.state = "afterPiece";
    }
  }
}

/** A piece's value, checked as every import checks JSON (nesting bounded), errors at their place in the file. */
export function parsePiece(text: string, line: number, column: number, depthAbove: number): unknown {
  const excess = jsonDepthExcess(text, MAX_JSON_DEPTH - depthAbove);
  if (excess) {
    const at = shift(line, column, excess.line, excess.column);
    throw new StreamSyntaxError(
      at.line,
      at.column,
      `the JSON nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep; the limit is ${MAX_JSON_DEPTH}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    const error = locateJsonError(text);
    const at = error ? shift(line, column, error.line, error.column) : { line, column };
    throw new StreamSyntaxError(at.line, at.column, error?.message ?? "not valid JSON");
  }
  // A number past what a double holds (1e400) would be stored as null without a word: refused where it is.
  const huge = hugeNumberAt(text, value);
  if (huge) {
    const at = shift(line, column, huge.line, huge.column);
    throw new StreamSyntaxError(at.line, at.column, huge.message);
  }
  return value;
}

/** A position inside a piece (1-based) as a position in the file, the piece starting at (line, column). */
function shift(line: number, column: number, innerLine: number, innerColumn: number) {
  return innerLine === 1
    ? { line, column: column + innerColumn - 1 }
    : { line: line + innerLine - 1, column: innerColumn };
}
