/**
 * Answers that go quiet: a streamed body (or a program's output) read with a
 * deadline between its chunks, so a provider that stops sending mid-answer
 * while it keeps the connection open is given up instead of awaited forever.
 * Any bytes count — an event, a keep-alive comment, a ping, the model's
 * thinking — so only true silence ends an answer. Knows bytes, not wire
 * formats; failure.ts words the failure.
 */

/** The provider sent nothing for `idleMs` while hob waited for more of its answer. */
export class StreamIdleError extends Error {
  override name = "StreamIdleError";
  /** How long it was quiet, in milliseconds. */
  readonly idleMs: number;

  constructor(idleMs: number) {
    super(`nothing arrived for ${idleMs} ms`);
    this.idleMs = idleMs;
  }
}

/**
 * `body`, failing with a {@linkcode StreamIdleError} (and cancelling `body`,
 * which closes its connection) when a read waits `idleMs` with nothing
 * arriving. The clock runs only while the reader waits: a consumer that is
 * busy elsewhere does not make the provider look quiet. Every timer is
 * cleared when its read ends.
 *
 * @example
 * ```ts
 * const body = idleWatched(response.body!, 120_000);
 * ```
 */
export function idleWatched(
  body: ReadableStream<Uint8Array>,
  idleMs: number,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = await readWithin(reader, idleMs);
      try {
        if (read === "quiet") {
          const error = new StreamIdleError(idleMs);
          controller.error(error);
          reader.cancel(error).catch(() => {});
        } else if (read.done) controller.close();
        else controller.enqueue(read.value);
      } catch {
        // Cancelled by the consumer while the read was pending: nothing is wanted any more.
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/**
 * fetch, with the body of every event-stream response watched by
 * {@linkcode idleWatched}: what an SDK's client is given as its `fetch`, so
 * its streams end when the provider goes quiet.
 *
 * @example
 * ```ts
 * new OpenAI({ baseURL, fetch: idleFetch(provider.idle_timeout_ms) });
 * ```
 */
export function idleFetch(
  idleMs: number,
  base: (input: string | URL | Request, init?: RequestInit) => Promise<Response> = fetch,
): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async function idleAwareFetch(input, init) {
    const response = await base(input, init);
    const type = response.headers.get("content-type") ?? "";
    if (!response.body || !type.includes("text/event-stream")) return response;
    return new Response(idleWatched(response.body, idleMs), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * The lines of a program's output as they come, failing with a
 * {@linkcode StreamIdleError} when nothing arrives for `idleMs`.
 *
 * @example
 * ```ts
 * for await (const line of idleLines(child.stdout, 600_000)) handle(line);
 * ```
 */
export async function* idleLines(
  output: ReadableStream<Uint8Array>,
  idleMs: number,
): AsyncGenerator<string> {
  const lines = idleWatched(output, idleMs).pipeThrough(new TextDecoderStream());
  let rest = "";
  for await (const chunk of lines) {
    rest += chunk;
    const parts = rest.split("\n");
    rest = parts.pop()!;
    yield* parts;
  }
  if (rest) yield rest;
}

/** The next chunk, or "quiet" when none came within `idleMs`; the timer is always cleared. */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  idleMs: number,
): Promise<ReadableStreamReadResult<Uint8Array> | "quiet"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const quiet = new Promise<"quiet">((resolve) => timer = setTimeout(resolve, idleMs, "quiet"));
  try {
    return await Promise.race([reader.read(), quiet]);
  } finally {
    clearTimeout(timer);
  }
}
