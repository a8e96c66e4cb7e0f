/**
 * The framed pipe between the hob process and a tool process, over the
 * child's stdin and stdout. Tool code shares that stdout (console.log,
 * `Deno.stdout.write`), so a frame is one line that starts with a marker no
 * printable output contains by accident: a line without it is noise and is
 * dropped; a frame after noise on the same line is still found. This protects
 * the protocol from accidents, not from the tool: the process as a whole is
 * untrusted, and the hob process checks every frame it gets.
 */

/** Starts every frame: ASCII record and unit separators around a name. */
export const FRAME_MARKER = "\x1ehob\x1f";

/**
 * Longest line hob keeps from a process while looking for its end. A longer
 * one is noise (a frame is a capped result or Markdown, a description or a
 * service call); it is dropped so a tool printing without newlines cannot
 * grow hob's memory.
 */
export const MAX_FRAME_BYTES = 32 * 1024 * 1024;

/**
 * Longest line a process reads from hob, which is trusted: a call may carry
 * a whole document (25 MB, as base64 in JSON).
 */
export const MAX_HOB_FRAME_BYTES = 64 * 1024 * 1024;

const NEWLINE = 0x0a;
const encoder = new TextEncoder();

/**
 * One message as the bytes of one frame. JSON escapes every control
 * character, so the frame holds no newline and no second marker.
 *
 * @example
 * ```ts
 * Deno.stdout.writeSync(encodeFrame({ type: "ready" }));
 * ```
 */
export function encodeFrame(message: unknown): Uint8Array {
  return encoder.encode(`${FRAME_MARKER}${JSON.stringify(message)}\n`);
}

/**
 * The message in one line of output, or undefined when the line is noise. The
 * last marker counts: noise before a frame on the same line is skipped.
 */
export function decodeFrame(line: string): unknown {
  const at = line.lastIndexOf(FRAME_MARKER);
  if (at < 0) return undefined;
  try {
    return JSON.parse(line.slice(at + FRAME_MARKER.length));
  } catch {
    return undefined;
  }
}

/**
 * Reads frames from a byte stream, one at a time, on demand: between calls to
 * {@linkcode FrameReader.next} nothing is read.
 *
 * @example
 * ```ts
 * const frames = new FrameReader(child.stdout);
 * const first = await frames.next(); // null at the end of the stream
 * ```
 */
export class FrameReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #maxBytes: number;
  readonly #decoder = new TextDecoder();
  /** Bytes of the current line that came in earlier chunks. */
  #parts: Uint8Array[] = [];
  #partBytes = 0;
  /** The rest of the last chunk, after the newline that ended a frame. */
  #rest: Uint8Array = new Uint8Array(0);
  /** Set while dropping an over-long line up to its newline. */
  #skipping = false;
  #done = false;

  constructor(stream: ReadableStream<Uint8Array>, maxBytes: number = MAX_FRAME_BYTES) {
    this.#reader = stream.getReader();
    this.#maxBytes = maxBytes;
  }

  /** The next frame's message, or null when the stream ended (or failed). */
  async next(): Promise<unknown> {
    for (;;) {
      const found = this.#takeFrame();
      if (found !== undefined) return found;
      if (this.#done) return null;
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.#reader.read();
      } catch {
        chunk = { done: true, value: undefined };
      }
      if (chunk.done) {
        this.#done = true;
        // A last line without a newline may still be a frame.
        const last = this.#line(new Uint8Array(0));
        const message = last === undefined ? undefined : decodeFrame(last);
        if (message !== undefined) return message;
      } else {
        this.#rest = concat([this.#rest, chunk.value]);
      }
    }
  }

  /** Stops reading; a pending {@linkcode next} returns null. */
  async cancel(): Promise<void> {
    this.#done = true;
    await this.#reader.cancel().catch(() => {});
  }

  /** The first frame among the complete lines buffered, dropping noise before it. */
  #takeFrame(): unknown {
    for (;;) {
      const end = this.#rest.indexOf(NEWLINE);
      if (end < 0) {
        this.#keep(this.#rest);
        this.#rest = new Uint8Array(0);
        return undefined;
      }
      const line = this.#line(this.#rest.subarray(0, end));
      this.#rest = this.#rest.subarray(end + 1);
      const message = line === undefined ? undefined : decodeFrame(line);
      if (message !== undefined) return message;
    }
  }

  /** Ends the current line with `tail`; undefined when it was dropped as over-long. */
  #line(tail: Uint8Array): string | undefined {
    const skipped = this.#skipping;
    const parts = [...this.#parts, tail];
    this.#parts = [];
    this.#partBytes = 0;
    this.#skipping = false;
    if (skipped) return undefined;
    return this.#decoder.decode(concat(parts));
  }

  /** Holds the start of a line until its newline comes, within the size bound. */
  #keep(bytes: Uint8Array): void {
    if (this.#skipping || bytes.length === 0) return;
    this.#partBytes += bytes.length;
    if (this.#partBytes > this.#maxBytes) {
      this.#parts = [];
      this.#partBytes = 0;
      this.#skipping = true;
      return;
    }
    // Copied: the chunk's buffer is reused by the next read.
    this.#parts.push(bytes.slice());
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const nonEmpty = chunks.filter((chunk) => chunk.length > 0);
  if (nonEmpty.length === 1) return nonEmpty[0];
  const out = new Uint8Array(nonEmpty.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of nonEmpty) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
