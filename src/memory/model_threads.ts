/**
 * The embedding model's threads: one Worker each, one request at a time,
 * queries before documents. The first thread serves every request and unloads
 * after a while unused; helpers join it only while a backlog of documents
 * lasts, each with its own copy of the model, and leave when the backlog has
 * drained — so indexing uses up to `threads` cores, and the memory they hold
 * comes back when it ends. Knows Workers and queues; nothing of the model.
 */

import type { EmbedKind } from "./embedder.ts";

/**
 * Document requests that must be waiting, every thread busy, before a helper
 * is started: a helper's model takes ~0.7 s to load, about what one thread
 * embeds in 8 requests, so a smaller backlog is done sooner without one.
 */
export const HELPER_BACKLOG = 8;
/**
 * How long a helper stays once no document waits: a backlog that arrives in
 * steps (a burst of edits, the index's next batch) keeps its thread rather
 * than loading the model again.
 */
export const HELPER_LINGER_MS = 1_000;

/** One request: texts to embed, or none to load the model. */
interface Job {
  texts?: string[];
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/** One thread: its Worker while it runs, the request it is on, its idle timer. */
interface Thread {
  worker?: Worker;
  job?: Job;
  /** Answered since its Worker started: its model is loaded. */
  loaded: boolean;
  idle?: ReturnType<typeof setTimeout>;
}

/** What the threads run and when they stop. */
export interface ModelThreadsOptions {
  /** The Worker's module: answers `{texts?}` with `{ok, vectors?, error?}`. */
  worker: URL;
  /** The Worker's name, in stack traces and the inspector. */
  name: string;
  /** Threads at most, the first included. */
  threads: number;
  /** How long the first thread stays loaded after its last request. */
  idleUnloadMs: number;
  /** @default {HELPER_LINGER_MS} */
  helperLingerMs?: number;
  /** Called whenever the first thread's Worker stops (unused, crashed or closed). */
  onStop: () => void;
}

/**
 * The model's threads and their two queues.
 *
 * @example
 * ```ts
 * const model = new ModelThreads({ worker, name: "hob-embedder", threads: 2, idleUnloadMs, onStop });
 * const vectors = await model.request(["a note"], "document");
 * model.stop(new Error("closed"));
 * ```
 */
export class ModelThreads {
  readonly #options: Required<ModelThreadsOptions>;
  /** The first thread, then the helpers while a backlog lasts. */
  readonly #threads: Thread[] = [{ loaded: false }];
  /** Queries first, then documents, each in the order asked. */
  readonly #queries: Job[] = [];
  readonly #documents: Job[] = [];

  constructor(options: ModelThreadsOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1) {
      throw new RangeError(
        `Cannot start the model's threads as 'threads' must be a positive integer: current value is ${options.threads}`,
      );
    }
    this.#options = { ...options, helperLingerMs: options.helperLingerMs ?? HELPER_LINGER_MS };
  }

  /** Threads whose Worker runs now, the first included. */
  get running(): number {
    return this.#threads.filter((thread) => thread.worker).length;
  }

  /** Embeds `texts`, or loads the first thread's model when there are none. */
  request(texts: string[] | undefined, kind: EmbedKind): Promise<Float32Array[]> {
    return new Promise((resolve, reject) => {
      (kind === "query" ? this.#queries : this.#documents).push({ texts, resolve, reject });
      this.#next();
    });
  }

  /** Stops every Worker; every request waiting or running fails with `error`. */
  stop(error: Error): void {
    this.#failWaiting(error);
    for (const thread of [...this.#threads]) {
      thread.job?.reject(error);
      thread.job = undefined;
      this.#unload(thread);
    }
  }

  /** Gives each free thread its next request, starts a helper for a backlog, and idles the rest. */
  #next(): void {
    for (const thread of this.#threads) {
      if (!thread.job) this.#give(thread, this.#take(thread));
    }
    while (
      this.#documents.length >= HELPER_BACKLOG && this.#threads.length < this.#options.threads
    ) {
      const helper: Thread = { loaded: false };
      this.#threads.push(helper);
      this.#give(helper, this.#documents.shift());
    }
    for (const thread of this.#threads) {
      if (!thread.job) this.#idle(thread);
    }
  }

  /**
   * The request `thread` should run next: a query before any document. A load
   * goes to the first thread, whose model `isReady` tells of; a helper takes
   * a query only once its model is loaded, so no query waits for a load.
   */
  #take(thread: Thread): Job | undefined {
    const first = thread === this.#threads[0];
    const query = this.#queries.findIndex((job) => first || (thread.loaded && job.texts));
    if (query >= 0) return this.#queries.splice(query, 1)[0];
    return this.#documents.shift();
  }

  #give(thread: Thread, job: Job | undefined): void {
    if (!job) return;
    clearTimeout(thread.idle);
    thread.idle = undefined;
    thread.job = job;
    thread.worker ??= this.#start(thread);
    thread.worker.postMessage({ texts: job.texts });
  }

  /** Arms a free thread's unload, once: the first after `idleUnloadMs`, a helper after its linger. */
  #idle(thread: Thread): void {
    if (!thread.worker || thread.idle !== undefined) return;
    const first = thread === this.#threads[0];
    thread.idle = setTimeout(
      () => this.#unload(thread),
      first ? this.#options.idleUnloadMs : this.#options.helperLingerMs,
    );
    // A timer that keeps no process alive: a command ends when its work does.
    Deno.unrefTimer(thread.idle);
  }

  /** Stops a thread's Worker: the first thread's model must load again; a helper is gone. */
  #unload(thread: Thread): void {
    clearTimeout(thread.idle);
    thread.idle = undefined;
    thread.worker?.terminate();
    thread.worker = undefined;
    thread.loaded = false;
    if (thread === this.#threads[0]) this.#options.onStop();
    else this.#threads.splice(this.#threads.indexOf(thread), 1);
  }

  #start(thread: Thread): Worker {
    const worker = new Worker(this.#options.worker, { type: "module", name: this.#options.name });
    worker.onmessage = (
      event: MessageEvent<{ ok: boolean; vectors?: Float32Array[]; error?: string }>,
    ) => {
      const job = thread.job!;
      thread.job = undefined;
      if (event.data.ok) {
        thread.loaded = true;
        job.resolve(event.data.vectors ?? []);
      } else job.reject(new Error(`the embedding model failed: ${event.data.error}`));
      this.#next();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      this.#crash(thread, new Error(`the embedding model crashed: ${event.message}`));
    };
    return worker;
  }

  /** A Worker crashed: its request and every one waiting fail; the other threads finish theirs. */
  #crash(thread: Thread, error: Error): void {
    thread.job?.reject(error);
    thread.job = undefined;
    this.#failWaiting(error);
    this.#unload(thread);
  }

  #failWaiting(error: Error): void {
    for (const job of [...this.#queries.splice(0), ...this.#documents.splice(0)]) {
      job.reject(error);
    }
  }
}
