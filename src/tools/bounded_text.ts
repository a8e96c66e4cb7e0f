/**
 * Collecting a stream's text without holding all of it: the first and last
 * parts are kept, the middle counted, so a command that prints 50 MB costs
 * a few kilobytes.
 */

/**
 * Keeps the head and tail of everything appended, up to `cap` characters in all.
 *
 * @example
 * ```ts
 * const out = new BoundedText(10_000);
 * for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) out.append(chunk);
 * out.toString();
 * ```
 */
export class BoundedText {
  readonly #headCap: number;
  readonly #tailCap: number;
  #head = "";
  #tail = "";
  #total = 0;

  constructor(cap: number) {
    this.#headCap = Math.ceil(cap * 0.6);
    this.#tailCap = cap - this.#headCap;
  }

  append(text: string): void {
    this.#total += text.length;
    if (this.#head.length < this.#headCap) {
      const room = this.#headCap - this.#head.length;
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text.length > 0) {
      this.#tail = (this.#tail + text).slice(-this.#tailCap);
    }
  }

  /** Characters appended in all. */
  get total(): number {
    return this.#total;
  }

  toString(): string {
    const kept = this.#head.length + this.#tail.length;
    if (kept >= this.#total) return this.#head + this.#tail;
    return `${this.#head}\n\n[… ${this.#total - kept} characters omitted …]\n\n${this.#tail}`;
  }
}

/** Reads a byte stream into a BoundedText. */
export async function collectBounded(
  stream: ReadableStream<Uint8Array>,
  cap: number,
): Promise<BoundedText> {
  const text = new BoundedText(cap);
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) text.append(chunk);
  return text;
}

/**
 * Chunks of bytes joined into one array of at most `limit` bytes.
 *
 * @example
 * ```ts
 * joinCapped([new Uint8Array([1, 2]), new Uint8Array([3])], 2); // Uint8Array [1, 2]
 * ```
 */
export function joinCapped(chunks: Uint8Array[], limit: number): Uint8Array {
  const size = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const out = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) {
    const piece = chunk.subarray(0, out.length - at);
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
