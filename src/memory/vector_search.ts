/**
 * The meaning side of memory search: the query embedded, every window's
 * sign-bit signature compared by Hamming distance (a coarse pass, then the
 * full bits), and the survivors re-scored by exact cosine. Knows the
 * memory_vectors table and the embedder; nothing of keywords or fusion.
 */

import type { Sql } from "../store/statements.ts";
import { boundedQuery } from "./bounded_query.ts";
import type { Embedder } from "./embedder.ts";
import { CANDIDATES, type Scored } from "./fusion.ts";
import { dot, fromBlob, hamming, signBits } from "./vectors.ts";

/** Windows re-scored exactly after the sign-bit passes. */
const RERANK_WINDOWS = 200;
/** Windows kept by the coarse first pass (the first 128 sign bits). */
const COARSE_WINDOWS = 4_000;
/** Words (32 bits each) the coarse pass compares. */
const COARSE_WORDS = 4;

/** Query vectors kept by {@linkcode QueryVectors}: a turn's lookup, then a search for the same words. */
const CACHED_QUERIES = 64;

/**
 * A query's vector, by its text: the few most recent are kept, so asking the
 * same thing again (a retried turn, a search repeated) skips the model.
 */
export class QueryVectors {
  readonly #embedder: Embedder;
  readonly #recent = new Map<string, Promise<Float32Array>>();

  constructor(embedder: Embedder) {
    this.#embedder = embedder;
  }

  embed(query: string): Promise<Float32Array> {
    // The model reads only its first maxChars; both ends of a long query say more than its head.
    const text = boundedQuery(query, this.#embedder.maxChars);
    let vector = this.#recent.get(text);
    this.#recent.delete(text);
    vector ??= this.#embedder.embed([text], "query").then(([v]) => v);
    this.#recent.set(text, vector);
    // A failure is not kept: the next search asks again.
    vector.catch(() => this.#recent.delete(text));
    if (this.#recent.size > CACHED_QUERIES) {
      this.#recent.delete(this.#recent.keys().next().value!);
    }
    return vector;
  }
}

/** Sign-bit signatures of every window, in memory, for the first pass. */
export interface Signatures {
  chunkIds: Int32Array;
  /** Each window's row in memory_vectors. */
  rowids: Float64Array;
  bits: Uint32Array;
  words: number;
}

/** Reads every window's signature of one embedder into memory (the caller caches it). */
export function loadSignatures(sql: Sql, embedderId: string): Signatures {
  const { count, bytes } = sql<{ count: number; bytes: number | null }>(
    "SELECT COUNT(*) AS count, MAX(length(bits)) AS bytes FROM memory_vectors WHERE embedder = ?",
  ).one(embedderId);
  const words = (bytes ?? 0) / 4;
  const bits = new Uint32Array(count * words);
  const chunkIds = new Int32Array(count);
  const rowids = new Float64Array(count);
  // Row by row into the arrays: 200,000 windows never become 200,000 objects at once.
  const rows = sql<{ rowid: number; chunk_id: number; bits: Uint8Array }>(
    "SELECT rowid, chunk_id, bits FROM memory_vectors WHERE embedder = ?",
  ).iterate(embedderId);
  let i = 0;
  for (const row of rows) {
    if (i === count) break; // a row written since the count waits for the next load
    chunkIds[i] = row.chunk_id;
    rowids[i] = row.rowid;
    const bytes = new Uint8Array(bits.buffer, i * words * 4, words * 4);
    bytes.set(row.bits.subarray(0, words * 4));
    i++;
  }
  return { chunkIds: chunkIds.subarray(0, i), rowids: rowids.subarray(0, i), bits, words };
}

/**
 * The chunks closest in meaning to `query`, best first; a chunk scores as its
 * best window. `signatures` is read after the query is embedded, so a cache
 * dropped meanwhile is reloaded.
 */
export async function vectorRanking(
  sql: Sql,
  embedQuery: (query: string) => Promise<Float32Array>,
  query: string,
  signatures: () => Signatures,
): Promise<Scored[]> {
  const vector = await embedQuery(query);
  const loaded = signatures();
  const count = loaded.chunkIds.length;
  if (count === 0) return [];
  // First pass: Hamming distance between sign bits; keep the closest windows.
  const queryBits = signBits(vector);
  const keep = Math.min(RERANK_WINDOWS, count);
  const candidates = count <= keep
    ? Array.from({ length: count }, (_, i) => i)
    : closestSignatures(queryBits, loaded, keep);
  // Second pass: exact cosine; a chunk scores as its best window.
  const best = new Map<number, number>();
  // One query for all the candidates' vectors: far cheaper than one query each.
  const rows = sql<{ chunk_id: number; vector: Uint8Array }>(
    "SELECT chunk_id, vector FROM memory_vectors WHERE rowid IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(candidates.map((index) => loaded.rowids[index])));
  for (const row of rows) {
    const score = dot(vector, fromBlob(row.vector));
    if (score > (best.get(row.chunk_id) ?? -Infinity)) best.set(row.chunk_id, score);
  }
  return [...best].sort((a, b) => b[1] - a[1]).slice(0, CANDIDATES).map(([id, score]) => ({
    id,
    score,
  }));
}

/**
 * The indexes of the `keep` signatures closest to `query` in Hamming distance:
 * a coarse pass over the first 128 bits of all of them, then the full bits
 * over the survivors. Distances are small integers, so a histogram finds each
 * cut-off in linear time, where sorting every window would not.
 */
function closestSignatures(query: Uint32Array, signatures: Signatures, keep: number): number[] {
  const { bits, words } = signatures;
  const count = signatures.chunkIds.length;
  let survivors: Int32Array;
  if (count > COARSE_WINDOWS) {
    const coarse = query.subarray(0, Math.min(COARSE_WORDS, words));
    const distances = new Uint16Array(count);
    for (let i = 0; i < count; i++) distances[i] = hamming(coarse, bits, i * words);
    survivors = nearest(distances, null, coarse.length * 32, COARSE_WINDOWS);
  } else {
    survivors = Int32Array.from({ length: count }, (_, i) => i);
  }
  const distances = new Uint16Array(survivors.length);
  for (let i = 0; i < survivors.length; i++) {
    distances[i] = hamming(query, bits, survivors[i] * words);
  }
  return [...nearest(distances, survivors, words * 32, keep)];
}

/**
 * The (about) `keep` positions with the smallest distances — or, given
 * `items`, the items at those positions — found by a histogram cut-off.
 */
function nearest(
  distances: Uint16Array,
  items: Int32Array | null,
  maxDistance: number,
  keep: number,
): Int32Array {
  const histogram = new Uint32Array(maxDistance + 1);
  for (let i = 0; i < distances.length; i++) histogram[distances[i]]++;
  let cutoff = 0;
  for (let seen = histogram[0]; seen < keep && cutoff < maxDistance; seen += histogram[++cutoff]);
  const out = new Int32Array(Math.min(keep, distances.length));
  let n = 0;
  for (let i = 0; i < distances.length && n < out.length; i++) {
    if (distances[i] <= cutoff) out[n++] = items ? items[i] : i;
  }
  return out.subarray(0, n);
}
