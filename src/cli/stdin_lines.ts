/**
 * Lines from stdin, read ahead and buffered, so a script piping several lines
 * into `hob chat` loses none (Deno's node:readline drops lines a pipe
 * delivers early).
 */

/**
 * Yields stdin's lines without their line endings, then ends at EOF.
 *
 * @example
 * ```ts
 * for await (const line of stdinLines()) console.log(line.toUpperCase());
 * ```
 */
export async function* stdinLines(
  readable: ReadableStream<Uint8Array> = Deno.stdin.readable,
): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
    }
  }
  if (buffer) yield buffer;
}

/**
 * Lines read ahead into a queue, taken one at a time by whoever asks next: a
 * read given up (an approval prompt answered elsewhere) loses no line, the
 * next reader gets it.
 *
 * @example
 * ```ts
 * const lines = new LineQueue(stdinLines());
 * const answer = await lines.next(AbortSignal.timeout(5_000));
 * ```
 */
export class LineQueue {
  #lines: string[] = [];
  #ended = false;
  #waiters: (() => void)[] = [];

  constructor(source: AsyncIterable<string>) {
    this.#pump(source);
  }

  /** The next line, or done at the end; `signal` gives up waiting (rejecting with its reason). */
  async next(signal?: AbortSignal): Promise<IteratorResult<string>> {
    while (this.#lines.length === 0 && !this.#ended) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const stop = () => {
          this.#waiters = this.#waiters.filter((waiter) => waiter !== wake);
          reject(signal!.reason);
        };
        const wake = () => {
          signal?.removeEventListener("abort", stop);
          resolve();
        };
        this.#waiters.push(wake);
        signal?.addEventListener("abort", stop, { once: true });
      });
    }
    const line = this.#lines.shift();
    return line === undefined ? { done: true, value: undefined } : { done: false, value: line };
  }

  async #pump(source: AsyncIterable<string>): Promise<void> {
    try {
      for await (const line of source) {
        this.#lines.push(line);
        this.#wakeAll();
      }
    } finally {
      this.#ended = true;
      this.#wakeAll();
    }
  }

  #wakeAll(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}
