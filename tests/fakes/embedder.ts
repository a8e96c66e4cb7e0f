/**
 * A deterministic embedder for index mechanics tests: words hashed into 64
 * dimensions (a bag of words). It counts its calls. Search by meaning is
 * tested with the real USE-lite model.
 */

import { type Embedder, normalize } from "../../src/memory/embedder.ts";

export function fakeEmbedder(id = "fake-bow@1"): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  const embedder = {
    id,
    maxChars: 200,
    calls,
    isReady: () => true,
    load: () => Promise.resolve(),
    embed(texts: string[]) {
      calls.push(texts);
      return Promise.resolve(texts.map((text) => {
        const vector = new Float32Array(64);
        for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
          let hash = 0;
          for (const c of word) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
          vector[hash % 64] += 1;
        }
        return normalize(vector);
      }));
    },
    close() {},
  } satisfies Embedder & { calls: string[][] };
  return embedder;
}
