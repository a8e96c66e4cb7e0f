/**
 * Embeddings from `@huggingface/transformers` (ONNX): a model id from the
 * Hugging Face hub, or a local model folder for machines without network.
 * The package and its runtime are loaded only when this embedder is chosen.
 */

import { type Embedder, normalize } from "./embedder.ts";

/** The package, pinned; imported on first use only. */
const TRANSFORMERS = "npm:@huggingface/transformers@4.3.1";

/**
 * Why it cannot load under hob's own flags: the package loads native code
 * (sharp, onnxruntime-node), which Deno allows only with FFI — and FFI is
 * what hob's flags never grant, as native code escapes every permission.
 */
const NO_FFI = "the transformers: embedder runs native code (sharp, onnxruntime-node), which " +
  "needs --allow-ffi, and hob does not run with it; use use-lite, or an OpenAI-compatible " +
  "/v1/embeddings model (memory.embedder: ollama/nomic-embed-text), or run hob from source " +
  "with --allow-ffi added to the hob task's flags";

/**
 * Creates the embedder for a model id (`Xenova/bge-small-en-v1.5`) or a local
 * folder holding the model's files.
 */
export function createTransformersEmbedder(model: string): Embedder {
  type Extractor = (
    texts: string[],
    options: Record<string, unknown>,
  ) => Promise<{ tolist(): number[][] }>;
  let extractor: Promise<Extractor> | undefined;
  let ready = false;
  const local = model.startsWith("/") || model.startsWith(".");

  const load = () =>
    extractor ??= (async () => {
      if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") throw new Error(NO_FFI);
      let library: Record<string, unknown>;
      try {
        library = await import(TRANSFORMERS);
      } catch (error) {
        throw new Error(
          `@huggingface/transformers could not be loaded: ${(error as Error).message}`,
        );
      }
      const env = library.env as Record<string, unknown>;
      if (local) {
        env.allowRemoteModels = false;
        env.localModelPath = "";
      }
      const pipeline = library.pipeline as (task: string, model: string) => Promise<Extractor>;
      try {
        const made = await pipeline("feature-extraction", model);
        ready = true;
        return made;
      } catch (error) {
        throw new Error(
          `the embedding model '${model}' could not be loaded: ${(error as Error).message}`,
        );
      }
    })();

  return {
    id: `transformers:${model}`,
    maxChars: 2_000,
    isReady: () => ready,
    async load() {
      await load();
    },
    async embed(texts) {
      const run = await load();
      const output = await run(texts, { pooling: "mean", normalize: true });
      return output.tolist().map((v) => normalize(v));
    },
    close() {},
  };
}
