/**
 * The built-in embedder: Universal Sentence Encoder lite (512 dimensions),
 * offline, loaded lazily in its own Worker. It reads only about the first 128
 * tokens (~450 characters) of a text, so the index embeds chunks in windows.
 *
 * Each model thread (model_threads.ts) runs one request at a time, and a
 * query goes before every document still waiting: a turn's memory lookup
 * never queues behind a document being indexed, only beside the few windows
 * in progress. The model holds ~150 MB, so it is unloaded after a while unused
 * and loads again when next needed; a backlog of documents is shared with a
 * second thread, on a second core, for as long as it lasts.
 */

import { type Embedder, normalize } from "./embedder.ts";
import { ModelThreads } from "./model_threads.ts";

/**
 * Characters of a text the model is given. Its tokenizer's time grows with
 * the square of a text's length, and the model reads only the first 128
 * tokens, which no text of this length has fewer of.
 */
const TOKENIZED_CHARS = 2_000;
/**
 * Characters a request to the Worker holds at most, counted as the model pays
 * for them: every text in a request is padded to the longest one's tokens, so
 * a request costs its longest text's length times its texts. About four full
 * windows: the model is no faster per text in larger requests of long texts
 * (measured: 16 at once take as long as 16 alone), while a larger request
 * holds the Worker longer for a query waiting behind it and grows the model's
 * working memory. Short texts share a request up to MAX_TEXTS, which spreads
 * the ~15 ms each request costs whatever its size.
 */
const REQUEST_CHARS = 1_800;
/** Texts per request to the Worker at most, however short. */
const MAX_TEXTS = 16;
/** How long the model stays loaded after its last use. */
export const IDLE_UNLOAD_MS = 15 * 60_000;

/**
 * Model threads for a backlog of documents by default, at most one per core:
 * two embed at nearly twice one's rate, and each holds its own ~150 MB model.
 */
export const DEFAULT_THREADS = 2;

/** Options for {@linkcode createUseLiteEmbedder}. */
export interface UseLiteOptions {
  /** @default {IDLE_UNLOAD_MS} */
  idleUnloadMs?: number;
  /**
   * Model threads a backlog of documents is embedded with, capped at the
   * machine's cores; the second and later run only while the backlog lasts.
   * @default {DEFAULT_THREADS}
   */
  threads?: number;
  /** How long a helper thread stays once no document waits. @default {HELPER_LINGER_MS} */
  helperLingerMs?: number;
}

/** The USE-lite embedder, and how many of its model threads run now. */
export interface UseLiteEmbedder extends Embedder {
  /** Model threads running now: 0 unloaded, 1 for queries and small writes, more for a backlog. */
  runningThreads(): number;
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
export function createUseLiteEmbedder(options: UseLiteOptions = {}): UseLiteEmbedder {
  let loading: Promise<void> | undefined;
  let ready = false;
  const model = new ModelThreads({
    worker: new URL("./use_lite_worker.ts", import.meta.url),
    name: "hob-embedder",
    threads: Math.max(1, Math.min(options.threads ?? DEFAULT_THREADS, cores())),
    idleUnloadMs: options.idleUnloadMs ?? IDLE_UNLOAD_MS,
    helperLingerMs: options.helperLingerMs,
    onStop: () => {
      loading = undefined;
      ready = false;
    },
  });

  const embedder: UseLiteEmbedder = {
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
      const requests = requestsOf(safe);
      // Asked before any await, so a caller that goes on with other work
      // (the keyword search) overlaps it with the model's; the Worker loads
      // the model before the first request.
      const answers = requests.map((texts) => model.request(texts.map((i) => safe[i]), kind));
      const vectors: Float32Array[] = new Array(safe.length);
      (await Promise.all(answers)).forEach((answer, r) =>
        answer.forEach((vector, k) => vectors[requests[r][k]] = normalize(vector))
      );
      ready = true;
      return vectors;
    },
    close() {
      model.stop(new Error("the embedder was closed"));
    },
    runningThreads: () => model.running,
  };
  return embedder;
}

/**
 * Splits texts into requests to the Worker, as positions in `texts`: shortest
 * first, so each request holds texts of about one length. The model pads
 * every text of a request to the longest, and windows come longest first
 * within a chunk (a full window, then the rest), so requests in the given
 * order paid for a full window on nearly every text: ~20% of the model's time
 * on notes, measured. A text's vector does not depend on its neighbours
 * beyond the last bits of a float.
 *
 * @example
 * ```ts
 * requestsOf(["a".repeat(450), "hi", "b".repeat(200), "c".repeat(450), "d".repeat(450)]); // [[1, 2, 0, 3], [4]]
 * ```
 */
export function requestsOf(texts: string[]): number[][] {
  const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
  const requests: number[][] = [];
  let current: number[] = [];
  for (const i of order) {
    // Sorted by length, so `i` is the longest text of its request: the request costs its length times its texts.
    const padded = (current.length + 1) * texts[i].length;
    if (current.length && (padded > REQUEST_CHARS || current.length === MAX_TEXTS)) {
      requests.push(current);
      current = [];
    }
    current.push(i);
  }
  if (current.length) requests.push(current);
  return requests;
}

/** The machine's cores, or 1 where the platform does not say. */
function cores(): number {
  return navigator.hardwareConcurrency || 1;
}
