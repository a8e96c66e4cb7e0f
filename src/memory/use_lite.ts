/**
 * The built-in embedder: Universal Sentence Encoder lite (512 dimensions),
 * offline, loaded lazily in its own Worker. It reads only about the first 128
 * tokens (~450 characters) of a text, so the index embeds chunks in windows.
 */

import { type Embedder, normalize } from "./embedder.ts";

/**
 * Characters of a text the model is given. Its tokenizer's time grows with
 * the square of a text's length, and the model reads only the first 128
 * tokens, which no text of this length has fewer of.
 */
const TOKENIZED_CHARS = 2_000;
/** Texts sent to the model in one call; larger batches cost memory for no speed. */
const BATCH = 32;

/**
 * Creates the USE-lite embedder.
 *
 * @example
 * ```ts
 * const embedder = createUseLiteEmbedder();
 * const [vector] = await embedder.embed(["where did I park?"], "query");
 * ```
 */
export function createUseLiteEmbedder(): Embedder {
  let worker: Worker | undefined;
  let loading: Promise<void> | undefined;
  let ready = false;
  let nextId = 1;
  const pending = new Map<number, { resolve(v: Float32Array[]): void; reject(e: Error): void }>();

  const request = (texts?: string[]): Promise<Float32Array[]> => {
    if (!worker) {
      worker = new Worker(new URL("./use_lite_worker.ts", import.meta.url), {
        type: "module",
        name: "hob-embedder",
      });
      worker.onmessage = (
        event: MessageEvent<{ id: number; ok: boolean; vectors?: Float32Array[]; error?: string }>,
      ) => {
        const waiter = pending.get(event.data.id);
        pending.delete(event.data.id);
        if (event.data.ok) waiter?.resolve(event.data.vectors ?? []);
        else waiter?.reject(new Error(`the embedding model failed: ${event.data.error}`));
      };
      worker.onerror = (event) => {
        event.preventDefault();
        for (const waiter of pending.values()) {
          waiter.reject(new Error(`the embedding model crashed: ${event.message}`));
        }
        pending.clear();
      };
    }
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker!.postMessage({ id, texts });
    });
  };

  const embedder: Embedder = {
    id: "use-lite@0.2.0",
    maxChars: 450,
    isReady: () => ready,
    load() {
      loading ??= request().then(() => {
        ready = true;
      });
      return loading;
    },
    async embed(texts) {
      // Post the first batch before any await, so a caller that goes on with
      // other work (the keyword search) overlaps it with the model's.
      if (!ready) await embedder.load();
      const batches: Promise<Float32Array[]>[] = [];
      // The model throws on a batch of only empty strings; a lone space embeds as nothing in particular.
      const safe = texts.map((text) => (text.trim() ? text.slice(0, TOKENIZED_CHARS) : " "));
      for (let i = 0; i < safe.length; i += BATCH) {
        batches.push(request(safe.slice(i, i + BATCH)));
      }
      const out: Float32Array[] = [];
      for (const batch of batches) for (const vector of await batch) out.push(normalize(vector));
      return out;
    },
    close() {
      worker?.terminate();
      worker = undefined;
      for (const waiter of pending.values()) waiter.reject(new Error("the embedder was closed"));
      pending.clear();
    },
  };
  return embedder;
}
