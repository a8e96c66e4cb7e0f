/**
 * The embedder port: text in, unit-length vectors out. Adapters: the built-in
 * Universal Sentence Encoder lite (offline, in a Worker), any OpenAI-compatible
 * /v1/embeddings endpoint, and @huggingface/transformers. The index stores each
 * vector with the embedder's id and never compares vectors of two embedders.
 */

/** Whether a text is stored or searched for; some models embed the two differently. */
export type EmbedKind = "document" | "query";

/** What turns text into vectors. */
export interface Embedder {
  /** Names the model exactly; stored beside every vector it makes. */
  readonly id: string;
  /** Characters of a text the model actually reads; longer texts are cut by it, not by us. */
  readonly maxChars: number;
  /** Vectors for `texts`, unit length, in order. Empty texts must not be passed. */
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  /** Whether the model is loaded, so a caller on a hot path can choose not to wait. */
  isReady(): boolean;
  /** Loads the model (once); later calls return the same promise. */
  load(): Promise<void>;
  close(): void;
}

/** Scales a vector to unit length, so cosine similarity is a dot product. */
export function normalize(vector: ArrayLike<number>): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  const norm = Math.sqrt(sum) || 1;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i] / norm;
  return out;
}
