/**
 * The built-in embedder: Universal Sentence Encoder lite (512 dimensions),
 * offline, loaded lazily in its own Worker. It reads only about the first 128
 * tokens (~450 characters) of a text, so the index embeds chunks in windows.
 *
 * The Worker runs one request at a time, and a query goes before every
 * document still waiting: a turn's memory lookup never queues behind a
 * document being indexed, only beside the few windows in progress. The model
 * holds ~150 MB, so it is unloaded after a while unused and loads again when
 * next needed.
 */

import { type Embedder, type EmbedKind, normalize } from "./embedder.ts";

/**
 * Characters of a text the model is given. Its tokenizer's time grows with
 * the square of a text's length, and the model reads only the first 128
 * tokens, which no text of this length has fewer of.
 */
const TOKENIZED_CHARS = 2_000;
/**
 * Texts per request to the Worker. The model is no faster per text in larger
 * batches (measured: 16 texts at once take as long as 16 alone), while a
 * larger batch holds the Worker longer for a query waiting behind it and
 * grows the model's working memory.
 */
const BATCH = 4;
/** How long the model stays loaded after its last use. */
export const IDLE_UNLOAD_MS = 15 * 60_000;

/** One request waiting for the Worker: texts to embed, or none to load the model. */
interface Job {
  texts?: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** Options for {@linkcode createUseLiteEmbedder}. */
export interface UseLiteOptions {
  /** @default {IDLE_UNLOAD_MS} */
  idleUnloadMs?: number;
}

/**
 * The model's Worker: one request at a time, queries before documents,
 * started on the first request and stopped after `idleUnloadMs` unused.
 */
class ModelThread {
  readonly #idleUnloadMs: number;
  /** Called whenever the Worker stops (unused, crashed or closed): the model must load again. */
  readonly #onStop: () => void;
  #worker: Worker | undefined;
  /** Queries first, then documents, each in the order asked. */
  readonly #queries: Job[] = [];
  readonly #documents: Job[] = [];
  #running: Job | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(idleUnloadMs: number, onStop: () => void) {
    this.#idleUnloadMs = idleUnloadMs;
    this.#onStop = onStop;
  }

  /** Embeds `texts`, or loads the model when there are none. */
  request(texts: string[] | undefined, kind: EmbedKind): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      (kind === "query" ? this.#queries : this.#documents).push({ texts, resolve, reject });
      this.#next();
    });
  }

  /** Stops the Worker; every request waiting fails with `error`. */
  stop(error: Error): void {
    clearTimeout(this.#idleTimer);
    for (const job of [this.#running, ...this.#queries.splice(0), ...this.#documents.splice(0)]) {
      job?.reject(error);
    }
    this.#running = undefined;
    this.#unload();
  }

  #unload(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#onStop();
  }

  /** Posts the next waiting job when the Worker is free; arms the idle unload when none waits. */
  #next(): void {
    if (this.#running) return;
    this.#running = this.#queries.shift() ?? this.#documents.shift();
    clearTimeout(this.#idleTimer);
    if (!this.#running) {
      if (this.#worker) {
        this.#idleTimer = setTimeout(() => this.#unload(), this.#idleUnloadMs);
        // A timer that keeps no process alive: a command ends when its work does.
        Deno.unrefTimer(this.#idleTimer);
      }
      return;
    }
    this.#worker ??= this.#start();
    this.#worker.postMessage({ texts: this.#running.texts });
  }

  #start(): Worker {
    const worker = new Worker(new URL("./use_lite_worker.ts", import.meta.url), {
      type: "module",
      name: "hob-embedder",
    });
    worker.onmessage = (
      event: MessageEvent<{ ok: boolean; vectors?: Float32Array[]; error?: string }>,
    ) => {
      const job = this.#running!;
      this.#running = undefined;
      if (event.data.ok) job.resolve(event.data.vectors ?? []);
      else job.reject(new Error(`the embedding model failed: ${event.data.error}`));
      this.#next();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.stop(new Error(`the embedding model crashed: ${event.message}`));
    };
    return worker;
  }
}

/**
 * Creates the USE-lite embedder.
 *
 * @example
 * ```ts
 * const embedder = createUseLiteEmbedder();
 * const [vector] = await embedder.embed(["where did I park?"], "query");
 * ```
 */
export function createUseLiteEmbedder(options: UseLiteOptions = {}): Embedder {
  let loading: Promise<void> | undefined;
  let ready = false;
  const model = new ModelThread(options.idleUnloadMs ?? IDLE_UNLOAD_MS, () => {
    loading = undefined;
    ready = false;
  });

  const embedder: Embedder = {
    id: "use-lite@0.2.0",
    maxChars: 450,
    isReady: () => ready,
    load() {
      // A model that failed to load is not tried again until the Worker stops.
      loading ??= model.request(undefined, "query").then(() => {
        ready = true;
      });
      return loading;
    },
    async embed(texts, kind) {
      // The model throws on a batch of only empty strings; a lone space embeds as nothing in particular.
      const safe = texts.map((text) => (text.trim() ? text.slice(0, TOKENIZED_CHARS) : " "));
      const batches: Promise<Float32Array[]>[] = [];
      // Asked before any await, so a caller that goes on with other work
      // (the keyword search) overlaps it with the model's; the Worker loads
      // the model before the first batch.
      for (let i = 0; i < safe.length; i += BATCH) {
        batches.push(model.request(safe.slice(i, i + BATCH), kind));
      }
      const vectors = (await Promise.all(batches)).flat().map(normalize);
      ready = true;
      return vectors;
    },
    close() {
      model.stop(new Error("the embedder was closed"));
    },
  };
  return embedder;
}
