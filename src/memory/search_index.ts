/**
 * The memory index in hob.db: every Markdown file under HOME/memory cut into
 * chunks, searchable by BM25 (SQLite FTS5) and by meaning (embedding vectors),
 * the two fused by reciprocal rank. The files are the truth: the index is
 * incremental by content hash and can be deleted and rebuilt without loss.
 */

import { rollback } from "../store/rollback.ts";
import { statements } from "../store/statements.ts";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { join, relative, sep } from "node:path";
import { timestamp } from "../store/timestamp.ts";
import { type Chunk, chunkMarkdown } from "./chunker.ts";
import { excerpt } from "../core/untrusted.ts";
import type { Embedder } from "./embedder.ts";
import { dot, fromBlob, hamming, signBits, toBlob } from "./vectors.ts";

/** Candidates each ranking contributes to the fusion. */
const CANDIDATES = 50;
/** Windows re-scored exactly after the sign-bit passes. */
const RERANK_WINDOWS = 200;
/** Windows kept by the coarse first pass (the first 128 sign bits). */
const COARSE_WINDOWS = 4_000;
/** Words (32 bits each) the coarse pass compares. */
const COARSE_WORDS = 4;
/** The k of reciprocal rank fusion: how much the top ranks dominate. */
const RRF_K = 60;
/** How long a search waits for vectors still being made before it goes without them. */
const PENDING_WAIT_MS = 3_000;
/** Chunks embedded per batch while indexing. */
const EMBED_BATCH = 64;
/** Longest heading path prefixed to an embedding window. */
const MAX_PREFIX_CHARS = 120;
/** Characters of a chunk shown as a result's snippet. */
const SNIPPET_CHARS = 320;

/** Indexes this large drop very common query terms (see #selectiveTerms). */
const COMMON_TERMS_FROM = 2_000;
/** A term in more than this share of chunks is very common. */
const COMMON_TERM_SHARE = 0.2;

/**
 * The commonest English function words. The list stays short on purpose:
 * longer lists cost recall ("after", "until" can matter), and very common
 * terms of large indexes are dropped by document frequency instead.
 */
const STOPWORDS = new Set(
  `a an and are as at be but by did do does for from had has have how i if in into is it its me my no not of on
  or our so than that the their them then there these they this to was we were what when where which who why
  will with you your`.split(/\s+/),
);

/** A chunk id with its score in one ranking, higher is better. */
interface Scored {
  id: number;
  score: number;
}

/**
 * How the keyword and vector rankings are fused. `score` (the default) adds
 * each ranking's scores scaled to 0–1 over its candidates, weighted; `rrf` is
 * reciprocal rank fusion. On the membot golden set (bench/RESULTS.md) score
 * fusion beat RRF, and halving the weight of USE-lite's vectors — a model that
 * reads only ~450 characters and ranks worse than BM25 alone — beat equal weights.
 */
export interface Fusion {
  method: "score" | "rrf";
  keywordWeight: number;
  vectorWeight: number;
  /**
   * Vector candidates below this cosine similarity are dropped, so a search
   * that matches nothing returns nothing rather than the least bad chunks.
   */
  minSimilarity: number;
}

/** The fusion for an embedder: a weaker model's evidence counts for less. */
export function defaultFusion(embedderId: string | null): Fusion {
  // USE-lite's cosines are low even for true paraphrases of short facts (0.25-0.45
  // measured) while off-topic queries reach ~0.32: the floor favours recall, and
  // an off-topic query may get a weak hit rather than none.
  const useLite = embedderId?.startsWith("use-lite") ?? false;
  return {
    method: "score",
    keywordWeight: 1,
    vectorWeight: useLite ? 0.5 : 1,
    minSimilarity: useLite ? 0.25 : 0,
  };
}

/**
 * Fuses the keyword and vector rankings into one, best first. With score
 * fusion each ranking's scores are scaled so its best candidate is 1 and "no
 * relevance" is 0 — BM25's zero, the embedder's similarity floor — which does
 * not depend on how many candidates were fetched, as min-max scaling would.
 */
function fuse(keyword: Scored[], vector: Scored[], fusion: Fusion): [number, number][] {
  const fused = new Map<number, number>();
  const add = (ranking: Scored[], weight: number, zero: number) => {
    if (ranking.length === 0) return;
    if (fusion.method === "rrf") {
      ranking.forEach(({ id }, rank) =>
        fused.set(id, (fused.get(id) ?? 0) + weight / (RRF_K + rank + 1))
      );
      return;
    }
    const span = ranking[0].score - zero;
    if (span <= 0) return; // nothing in this ranking is relevant at all
    for (const { id, score } of ranking) {
      if (score <= zero) continue;
      fused.set(id, (fused.get(id) ?? 0) + weight * (score - zero) / span);
    }
  };
  add(keyword, fusion.keywordWeight, 0);
  add(vector, fusion.vectorWeight, fusion.minSimilarity);
  return [...fused].sort((a, b) => b[1] - a[1]);
}

/** One search result. */
export interface MemoryHit {
  /** Relative to HOME/memory. */
  path: string;
  start_line: number;
  end_line: number;
  heading: string;
  snippet: string;
  /** The whole chunk's text. */
  text: string;
  score: number;
}

/** How to search. */
export interface SearchOptions {
  /** @default {5} */
  limit?: number;
  /**
   * Chunks of one file in the results at most.
   * @default {2}
   */
  perFile?: number;
  /** `keyword` or `vector` alone, for comparison; `hybrid` fuses both. @default {"hybrid"} */
  mode?: "hybrid" | "keyword" | "vector";
  /**
   * Wait for the embedder to load rather than search by keywords alone.
   * @default {true}
   */
  waitForEmbedder?: boolean;
  /** Overrides the index's fusion (for evaluation). */
  fusion?: Fusion;
}

/** Progress of a (re)index, for a progress bar or an event stream. */
export interface IndexProgress {
  phase: "files" | "embedding";
  done: number;
  total: number;
}

/** What the index holds. */
export interface IndexStats {
  files: number;
  chunks: number;
  vectors: number;
  embedder: string | null;
  /** Chunks still waiting for their vectors. */
  pending: number;
}

interface ChunkRow {
  id: number;
  path: string;
  heading: string;
  start_line: number;
  end_line: number;
  text: string;
}

/** Sign-bit signatures of every window, in memory, for the first pass. */
interface Signatures {
  chunkIds: Int32Array;
  /** Each window's row in memory_vectors. */
  rowids: Float64Array;
  bits: Uint32Array;
  words: number;
}

/**
 * The index over one home's memory directory.
 *
 * @example
 * ```ts
 * const index = new MemoryIndex(db, `${home}/memory`, embedder);
 * await index.sync();
 * const hits = await index.search("where did we stay in Kyoto?");
 * ```
 */
export class MemoryIndex {
  readonly #db: DatabaseSync;
  readonly #dir: string;
  readonly #embedder: Embedder | null;
  readonly #sql: (sql: string) => StatementSync;
  #signatures: Signatures | null = null;
  #chunkCount: number | null = null;
  #embedding: Promise<void> | null = null;
  #stopped = false;
  readonly #fusion: Fusion;
  /** Serialises indexing, so two syncs never interleave their writes. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(db: DatabaseSync, dir: string, embedder: Embedder | null, fusion?: Fusion) {
    this.#db = db;
    this.#sql = statements(db);
    this.#dir = dir;
    this.#embedder = embedder;
    this.#fusion = fusion ?? defaultFusion(embedder?.id ?? null);
    this.#dropForeignVectors();
  }

  /** The embedder's id, or null when searches are by keyword only. */
  get embedderId(): string | null {
    return this.#embedder?.id ?? null;
  }

  /** The last warning given, so a failing embedder is reported once, not per search. */
  #warned = "";

  #warn(message: string): void {
    if (message === this.#warned) return;
    this.#warned = message;
    console.error(`hob: memory: ${message}`);
  }

  /** Vectors of another embedder are deleted: two models' vectors are never mixed. */
  #dropForeignVectors(): void {
    const id = this.#embedder?.id ?? "";
    const removed = this.#sql("DELETE FROM memory_vectors WHERE embedder != ?").run(id);
    if (Number(removed.changes) > 0) this.#signatures = null;
  }

  /**
   * Brings the index up to date with the files: new and changed files are
   * (re)chunked, deleted ones dropped. Missing vectors are embedded in the
   * background, or before this resolves with `waitForVectors`. Returns the
   * relative paths that changed.
   */
  sync(onProgress?: (progress: IndexProgress) => void, waitForVectors = false): Promise<string[]> {
    return this.#serial(async () => {
      const files = await listMarkdown(this.#dir);
      const known = new Map(
        (this.#sql("SELECT path, hash FROM memory_files").all() as { path: string; hash: string }[])
          .map((row) => [row.path, row.hash]),
      );
      const changed: string[] = [];
      let done = 0;
      for (const path of files) {
        if (await this.#indexFile(path, known.get(path))) changed.push(path);
        known.delete(path);
        onProgress?.({ phase: "files", done: ++done, total: files.length });
      }
      for (const gone of known.keys()) {
        this.#removeFile(gone);
        changed.push(gone);
      }
      if (waitForVectors) {
        await this.#embedding;
        await this.#embedPending(onProgress);
      } else this.#startEmbedding();
      return changed;
    });
  }

  /** Indexes one file (relative to the memory directory) if it changed, or drops it if it is gone. */
  indexFile(path: string): Promise<boolean> {
    return this.#serial(async () => {
      const known = this.#sql("SELECT hash FROM memory_files WHERE path = ?").get(path) as
        | { hash: string }
        | undefined;
      const changed = await this.#indexFile(path, known?.hash);
      this.#startEmbedding();
      return changed;
    });
  }

  /** Deletes the whole index and builds it again from the files. */
  reindex(onProgress?: (progress: IndexProgress) => void): Promise<string[]> {
    this.#serial(async () => {
      // A background embedding must not write vectors for chunks about to go.
      await this.#embedding;
      this.#db.exec("DELETE FROM memory_chunks");
      this.#db.exec("DELETE FROM memory_files");
      this.#signatures = null;
      this.#chunkCount = null;
    });
    return this.sync(onProgress, true);
  }

  /** Waits until every chunk has its vectors (for tests, evals and `hob memory reindex`). */
  async settle(): Promise<void> {
    await this.#queue;
    while (this.#embedding) await this.#embedding;
  }

  stats(): IndexStats {
    const count = (sql: string, ...params: string[]) =>
      (this.#sql(sql).get(...params) as { n: number }).n;
    const embedder = this.#embedder?.id ?? null;
    const chunks = count("SELECT COUNT(*) AS n FROM memory_chunks");
    const vectors = count(
      "SELECT COUNT(DISTINCT chunk_id) AS n FROM memory_vectors WHERE embedder = ?",
      embedder ?? "",
    );
    return {
      files: count("SELECT COUNT(*) AS n FROM memory_files"),
      chunks,
      vectors: count("SELECT COUNT(*) AS n FROM memory_vectors WHERE embedder = ?", embedder ?? ""),
      embedder,
      pending: embedder ? chunks - vectors : 0,
    };
  }

  /**
   * Searches memory. Hybrid search fuses the BM25 and the vector rankings by
   * reciprocal rank; without an embedder (or while it loads, unless told to
   * wait) it searches by keywords alone.
   */
  async search(query: string, options: SearchOptions = {}): Promise<MemoryHit[]> {
    const { limit = 5, perFile = 2, mode = "hybrid", waitForEmbedder = true } = options;
    const useVectors = mode !== "keyword" && this.#embedder !== null &&
      (waitForEmbedder || this.#embedder.isReady());
    // A chunk written a moment ago (remember_this) should be findable by meaning.
    if (useVectors && waitForEmbedder && this.#embedding) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.#embedding,
        new Promise((r) => timer = setTimeout(r, PENDING_WAIT_MS)),
      ]);
      clearTimeout(timer);
    }
    // The query's embedding is computed in the embedder's Worker while BM25 runs here.
    // An embedder that fails (a provider that is down) leaves keyword search working.
    const vectorRanking = useVectors
      ? this.#vectorRanking(query).catch((error) => {
        this.#warn(`searching by keywords only: ${(error as Error).message}`);
        return [] as Scored[];
      })
      : Promise.resolve([] as Scored[]);
    const keywordRanking = mode === "vector" ? [] : this.#keywordRanking(query);
    const fusion = options.fusion ?? this.#fusion;
    const vectors = (await vectorRanking).filter((candidate) =>
      candidate.score > fusion.minSimilarity
    );
    const ordered = fuse(keywordRanking, vectors, fusion);
    const hits: MemoryHit[] = [];
    const perPath = new Map<string, number>();
    for (const [id, score] of ordered) {
      const row = this.#sql(
        "SELECT id, path, heading, start_line, end_line, text FROM memory_chunks WHERE id = ?",
      ).get(id) as ChunkRow | undefined;
      if (!row) continue;
      const seen = perPath.get(row.path) ?? 0;
      if (seen >= perFile) continue;
      perPath.set(row.path, seen + 1);
      hits.push({
        path: row.path,
        start_line: row.start_line,
        end_line: row.end_line,
        heading: row.heading,
        snippet: snippet(row.text, query),
        text: row.text,
        score: Number(score.toFixed(6)),
      });
      if (hits.length >= limit) break;
    }
    return hits;
  }

  #keywordRanking(query: string): Scored[] {
    const terms = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])]
      .filter((term) => !STOPWORDS.has(term) && (term.length > 1 || /\d/.test(term)));
    if (terms.length === 0) return [];
    const match = this.#selectiveTerms(terms).map((term) => `"${term}"`).join(" OR ");
    const rows = this.#sql(
      "SELECT rowid AS id, bm25(memory_fts, 2.0, 1.0) AS score FROM memory_fts WHERE memory_fts MATCH ? ORDER BY score LIMIT ?",
    ).all(match, CANDIDATES) as { id: number; score: number }[];
    // FTS5's bm25 is negative, lower is better.
    return rows.map((row) => ({ id: row.id, score: -row.score }));
  }

  /**
   * Drops terms found in more than a fifth of a large index, as a "common
   * terms" query does: they add little to BM25 (their IDF is near zero) and
   * scoring their long posting lists is most of a search's cost. The rarest
   * term always stays.
   */
  #selectiveTerms(terms: string[]): string[] {
    if (terms.length < 2) return terms;
    // The count changes only with the chunks, like the signatures: cache it beside them.
    this.#chunkCount ??=
      (this.#sql("SELECT COUNT(*) AS n FROM memory_chunks").get() as { n: number }).n;
    const total = this.#chunkCount;
    if (total < COMMON_TERMS_FROM) return terms;
    const count = this.#sql("SELECT COUNT(*) AS n FROM memory_fts WHERE memory_fts MATCH ?");
    const frequency = terms.map((term) => ({
      term,
      n: (count.get(`"${term}"`) as { n: number }).n,
    }));
    const kept = frequency.filter((f) => f.n <= total * COMMON_TERM_SHARE);
    if (kept.length > 0) return kept.map((f) => f.term);
    return [frequency.reduce((a, b) => (b.n < a.n ? b : a)).term];
  }

  async #vectorRanking(query: string): Promise<Scored[]> {
    const [vector] = await this.#embedder!.embed([query], "query");
    const signatures = this.#loadSignatures();
    const count = signatures.chunkIds.length;
    if (count === 0) return [];
    // First pass: Hamming distance between sign bits; keep the closest windows.
    const queryBits = signBits(vector);
    const keep = Math.min(RERANK_WINDOWS, count);
    const candidates = count <= keep
      ? Array.from({ length: count }, (_, i) => i)
      : closestSignatures(queryBits, signatures, keep);
    // Second pass: exact cosine; a chunk scores as its best window.
    const best = new Map<number, number>();
    // One query for all the candidates' vectors: far cheaper than one query each.
    const rows = this.#sql(
      "SELECT chunk_id, vector FROM memory_vectors WHERE rowid IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(candidates.map((index) => signatures.rowids[index]))) as {
      chunk_id: number;
      vector: Uint8Array;
    }[];
    for (const row of rows) {
      const score = dot(vector, fromBlob(row.vector));
      if (score > (best.get(row.chunk_id) ?? -Infinity)) best.set(row.chunk_id, score);
    }
    return [...best].sort((a, b) => b[1] - a[1]).slice(0, CANDIDATES).map(([id, score]) => ({
      id,
      score,
    }));
  }

  #loadSignatures(): Signatures {
    if (this.#signatures) return this.#signatures;
    const rows = this.#sql("SELECT rowid, chunk_id, bits FROM memory_vectors WHERE embedder = ?")
      .all(this.#embedder?.id ?? "") as { rowid: number; chunk_id: number; bits: Uint8Array }[];
    const words = rows.length > 0 ? rows[0].bits.byteLength / 4 : 0;
    const bits = new Uint32Array(rows.length * words);
    const chunkIds = new Int32Array(rows.length);
    const rowids = new Float64Array(rows.length);
    rows.forEach((row, i) => {
      chunkIds[i] = row.chunk_id;
      rowids[i] = row.rowid;
      bits.set(
        new Uint32Array(
          row.bits.buffer.slice(row.bits.byteOffset, row.bits.byteOffset + row.bits.byteLength),
        ),
        i * words,
      );
    });
    this.#signatures = { chunkIds, rowids, bits, words };
    return this.#signatures;
  }

  /** Re-chunks one file if its content changed; returns whether it did. */
  async #indexFile(path: string, knownHash: string | undefined): Promise<boolean> {
    let text: string;
    try {
      text = await Deno.readTextFile(join(this.#dir, path));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        if (knownHash === undefined) return false;
        this.#removeFile(path);
        return true;
      }
      throw error;
    }
    const hash = await sha256(text);
    if (hash === knownHash) return false;

    const chunks = chunkMarkdown(text);
    const hashes = await Promise.all(
      chunks.map((chunk) => sha256(`${chunk.heading}\n${chunk.text}`)),
    );
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      // Vectors of chunks that did not change are kept, so appending to a file
      // embeds only what was appended.
      const reusable = new Map<
        string,
        { window: number; vector: Uint8Array; bits: Uint8Array }[]
      >();
      const old = this.#sql(
        `SELECT c.hash, v.window, v.vector, v.bits FROM memory_chunks c
           JOIN memory_vectors v ON v.chunk_id = c.id AND v.embedder = ?
          WHERE c.path = ?`,
      ).all(this.#embedder?.id ?? "", path) as {
        hash: string;
        window: number;
        vector: Uint8Array;
        bits: Uint8Array;
      }[];
      for (const row of old) {
        const list = reusable.get(row.hash) ?? [];
        list.push({ window: row.window, vector: row.vector, bits: row.bits });
        reusable.set(row.hash, list);
      }
      this.#sql("DELETE FROM memory_chunks WHERE path = ?").run(path);
      this.#sql(
        `INSERT INTO memory_files (path, hash, size, indexed_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (path) DO UPDATE SET hash = excluded.hash, size = excluded.size, indexed_at = excluded.indexed_at`,
      ).run(path, hash, text.length, timestamp());
      const insert = this.#sql(
        "INSERT INTO memory_chunks (path, seq, heading, start_line, end_line, text, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
      );
      const copy = this.#sql(
        "INSERT INTO memory_vectors (chunk_id, window, embedder, vector, bits) VALUES (?, ?, ?, ?, ?)",
      );
      chunks.forEach((chunk, seq) => {
        const id = Number(
          insert.run(
            path,
            seq,
            chunk.heading,
            chunk.start_line,
            chunk.end_line,
            chunk.text,
            hashes[seq],
          )
            .lastInsertRowid,
        );
        for (const saved of reusable.get(hashes[seq]) ?? []) {
          copy.run(id, saved.window, this.#embedder!.id, saved.vector, saved.bits);
        }
        reusable.delete(hashes[seq]);
      });
      this.#db.exec("COMMIT");
    } catch (error) {
      rollback(this.#db);
      throw error;
    }
    this.#signatures = null;
    this.#chunkCount = null;
    return true;
  }

  #removeFile(path: string): void {
    this.#sql("DELETE FROM memory_chunks WHERE path = ?").run(path);
    this.#sql("DELETE FROM memory_files WHERE path = ?").run(path);
    this.#signatures = null;
    this.#chunkCount = null;
  }

  /**
   * Stops background embedding after the batch in progress (the vectors still
   * missing are made at the next start); resolves when it has stopped.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#embedding;
  }

  /** Embeds chunks that have no vectors yet, in the background. */
  #startEmbedding(): void {
    if (!this.#embedder || this.#embedding || this.#stopped) return;
    this.#embedding = this.#embedPending().catch((error) => {
      // Chunks keep waiting for vectors; the next write or start tries again.
      if (!this.#stopped) {
        this.#warn(`embedding failed, will retry later: ${(error as Error).message}`);
      }
    }).finally(() => {
      this.#embedding = null;
    });
  }

  async #embedPending(onProgress?: (progress: IndexProgress) => void): Promise<void> {
    const embedder = this.#embedder;
    if (!embedder) return;
    const missing = () =>
      this.#sql(
        `SELECT id, heading, text FROM memory_chunks c
          WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.chunk_id = c.id AND v.embedder = ?)
          ORDER BY id LIMIT ?`,
      ).all(embedder.id, EMBED_BATCH) as { id: number; heading: string; text: string }[];
    const total = this.stats().pending;
    let done = 0;
    for (let batch = missing(); batch.length > 0 && !this.#stopped; batch = missing()) {
      const windows = batch.flatMap((chunk) =>
        embeddingWindows(chunk as unknown as Chunk, embedder.maxChars).map((text, window) => ({
          id: chunk.id,
          window,
          text,
        }))
      );
      const vectors = await embedder.embed(windows.map((w) => w.text), "document");
      const insert = this.#sql(
        "INSERT OR REPLACE INTO memory_vectors (chunk_id, window, embedder, vector, bits) VALUES (?, ?, ?, ?, ?)",
      );
      const exists = this.#sql("SELECT 1 FROM memory_chunks WHERE id = ?");
      this.#db.exec("BEGIN IMMEDIATE");
      try {
        windows.forEach((w, i) => {
          // The chunk may have been replaced while its vectors were computed.
          if (!exists.get(w.id)) return;
          const bits = signBits(vectors[i]);
          insert.run(w.id, w.window, embedder.id, toBlob(vectors[i]), new Uint8Array(bits.buffer));
        });
        this.#db.exec("COMMIT");
      } catch (error) {
        rollback(this.#db);
        throw error;
      }
      this.#signatures = null;
      done += batch.length;
      onProgress?.({ phase: "embedding", done: Math.min(done, total), total });
    }
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => {});
    return run;
  }
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

/**
 * The texts a chunk is embedded as: its heading path, then as much of its text
 * as the model reads, window after window, cut at line or sentence ends.
 *
 * @example
 * ```ts
 * embeddingWindows({ heading: "Trip > Day 1", text: "…", start_line: 1, end_line: 9 }, 450);
 * ```
 */
export function embeddingWindows(
  chunk: Pick<Chunk, "heading" | "text">,
  maxChars: number,
): string[] {
  const prefix = chunk.heading ? `${chunk.heading.slice(0, MAX_PREFIX_CHARS)}\n` : "";
  const room = Math.max(100, maxChars - prefix.length);
  // The heading lines are in the prefix already; list markers and timestamps carry no meaning.
  const lines = chunk.text.split("\n").filter((line) => !/^#{1,6}\s/.test(line)).map(plainLine);
  if (!lines.some((line) => line.text)) return [prefix.trim() || chunk.text.slice(0, maxChars)];
  const windows: string[] = [];
  let current = "";
  const flush = () => {
    if (current) windows.push(prefix + current);
    current = "";
  };
  for (const line of lines) {
    if (!line.text) continue;
    // A list item is a statement of its own (a fact in MEMORY.md, a note in a log):
    // mixed with its neighbours its vector would describe none of them well.
    if (line.item) flush();
    for (const piece of line.text.split(/(?<=[.!?])\s+/)) {
      for (let at = 0; at < piece.length; at += room) {
        const part = piece.slice(at, at + room);
        if (current && current.length + 1 + part.length > room) flush();
        current = current ? `${current} ${part}` : part;
      }
    }
    if (line.item) flush();
  }
  flush();
  return windows;
}

/** A line without list markers, leading timestamps and inline Markdown marks. */
function plainLine(line: string): { text: string; item: boolean } {
  const item = /^\s*([-*+]|\d+[.)])\s+/.test(line);
  const text = line
    .replace(/^\s*([-*+]|\d+[.)])\s+/, "")
    .replace(/^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d\]?\s*/, "")
    .replace(/^\d\d:\d\d\s+/, "")
    .replace(/\*\*|__|`/g, "")
    .trim();
  return { text, item };
}

/** Every Markdown file under `dir`, relative, with `/` separators; dot-files skipped. */
export async function listMarkdown(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (current: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(current));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.isFile && entry.name.toLowerCase().endsWith(".md")) {
        out.push(relative(dir, path).split(sep).join("/"));
      }
    }
  };
  await walk(dir);
  return out.sort();
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The part of a chunk around the query's words, for showing a hit. */
function snippet(text: string, query: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  const words = (query.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) =>
    !STOPWORDS.has(w)
  );
  const lower = flat.toLowerCase();
  const at = words.map((w) => lower.indexOf(w)).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, Math.min(at - SNIPPET_CHARS / 4, flat.length - SNIPPET_CHARS));
  // Cut with labels whole: a snippet of untrusted text stays labelled.
  return `${start > 0 ? "…" : ""}${excerpt(flat, start, start + SNIPPET_CHARS)}${
    start + SNIPPET_CHARS < flat.length ? "…" : ""
  }`;
}
