/**
 * The memory index in hob.db: every Markdown file under HOME/memory cut into
 * chunks, searchable by BM25 (SQLite FTS5) and by meaning (embedding vectors),
 * the two fused into one ranking. The files are the truth: the index is
 * incremental by content hash and can be deleted and rebuilt without loss.
 *
 * This file coordinates the steps, each in a file of its own: indexing.ts
 * (files to chunks), embedding_queue.ts (chunks to vectors),
 * keyword_search.ts and vector_search.ts (the two rankings), fusion.ts (one
 * ranking from two). It owns the caches they share and the order of writes.
 */

import type { DatabaseSync } from "node:sqlite";
import { readKv, writeKv } from "../store/kv.ts";
import { type Sql, statements } from "../store/statements.ts";
import { transaction, withWriteLock } from "../store/transaction.ts";
import type { Embedder } from "./embedder.ts";
import { EmbeddingQueue } from "./embedding_queue.ts";
import { WINDOWS_VERSION } from "./embedding_windows.ts";
import { CHUNKS_VERSION } from "./chunker.ts";
import { defaultFusion, fuse, type Fusion, type Scored } from "./fusion.ts";
import { indexFile, type IndexProgress, listMarkdown, progressOf, removeFile } from "./indexing.ts";
import { countChunks, keywordRanking, type TermCounts, termWeights } from "./keyword_search.ts";
import { PASSAGE_CHARS_PER_HIT, passages } from "./passages.ts";
import { loadSignatures, QueryVectors, type Signatures, vectorRanking } from "./vector_search.ts";

// What other areas import from here, defined beside the step they belong to.
export { defaultFusion, type Fusion } from "./fusion.ts";
export { embeddingWindows } from "./embedding_windows.ts";
export { type IndexProgress, listMarkdown } from "./indexing.ts";

/** How long a search waits for vectors still being made before it goes without them. */
const PENDING_WAIT_MS = 3_000;
/**
 * A hit's score is multiplied by this for each chunk of its file already in
 * the results: a second chunk of one file must beat another file's best by
 * this much. 1 would let one long log fill every place; a hard cap (hob had
 * two per file) hid the answers of those who keep one long log.
 */
const SAME_FILE_DECAY = 0.9;
/** Candidates of the fused ranking read per hit asked for, to choose among. */
const CANDIDATES_PER_HIT = 4;
/** Where the index records which windowing its vectors were made with (see WINDOWS_VERSION). */
export const WINDOWS_VERSION_KEY = "memory.windows_version";
/** Where the index records which chunking its chunks were cut with (see CHUNKS_VERSION). */
export const CHUNKS_VERSION_KEY = "memory.chunks_version";

/** One search result. */
export interface MemoryHit {
  /** Relative to HOME/memory. */
  path: string;
  start_line: number;
  end_line: number;
  heading: string;
  /** The lines of the chunk that answer the query (see passages.ts), within the search's budget. */
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
   * Characters of passages shown, spent across the hits.
   * @default {PASSAGE_CHARS_PER_HIT × limit}
   */
  budget?: number;
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

/**
 * The best `limit` of `candidates` (best first), a file's chunks counting
 * less the more of them are already in: each is scored
 * `score × SAME_FILE_DECAY^k`, k its file's chunks chosen before it. One
 * long log fills the results when its chunks are the best by far; otherwise
 * other files get a turn. The candidates keep their own scores.
 *
 * @example
 * ```ts
 * diverse([{ file: "a", score: 1 }, { file: "a", score: 0.99 }, { file: "b", score: 0.95 }], 2);
 * // [{ file: "a", score: 1 }, { file: "b", score: 0.95 }]
 * ```
 */
export function diverse<T extends { file: string; score: number }>(
  candidates: readonly T[],
  limit: number,
): T[] {
  const left = [...candidates];
  const chosen: T[] = [];
  const fromFile = new Map<string, number>();
  while (chosen.length < limit && left.length > 0) {
    let best = 0;
    let bestScore = -Infinity;
    left.forEach((c, i) => {
      const score = c.score * SAME_FILE_DECAY ** (fromFile.get(c.file) ?? 0);
      if (score > bestScore) [best, bestScore] = [i, score];
    });
    const [next] = left.splice(best, 1);
    fromFile.set(next.file, (fromFile.get(next.file) ?? 0) + 1);
    chosen.push(next);
  }
  return chosen;
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
  readonly #sql: Sql;
  readonly #vectors: EmbeddingQueue;
  /** Cached for the vector search; dropped whenever vectors change. */
  #signatures: Signatures | null = null;
  /** Set by `stop`: what fails after it was asked to. */
  #stopped = false;
  /** The latest queries' vectors. */
  #queryVectors: QueryVectors | undefined;
  /** Cached for the keyword search; dropped whenever chunks change. */
  #chunkCount: number | null = null;
  readonly #fusion: Fusion;
  /** Serialises indexing, so two syncs never interleave their writes. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(db: DatabaseSync, dir: string, embedder: Embedder | null, fusion?: Fusion) {
    this.#db = db;
    this.#sql = statements(db);
    this.#dir = dir;
    this.#embedder = embedder;
    this.#fusion = fusion ?? defaultFusion(embedder?.id ?? null);
    this.#vectors = new EmbeddingQueue({
      db,
      sql: this.#sql,
      embedder,
      pending: () => this.stats().pending,
      onVectors: () => this.#signatures = null,
      warn: (message) => this.#warn(message),
    });
    this.#dropStaleVectors();
    this.#rechunkIfStale();
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

  /**
   * Vectors of another embedder are deleted: two models' vectors are never
   * mixed. So are all vectors when the index recorded another windowing (or
   * none: an index built before versions were recorded): their chunks wait
   * for vectors and are embedded again, at this start, as after a change of model.
   * Read first: an index with nothing stale is not written (every command opening
   * the home would otherwise need hob.db's write lock).
   */
  #dropStaleVectors(): void {
    const id = this.#embedder?.id ?? "";
    const current = readKv<number>(this.#db, WINDOWS_VERSION_KEY) === WINDOWS_VERSION;
    const stale = this.#sql("SELECT 1 FROM memory_vectors WHERE embedder != ? LIMIT 1").get(id);
    if (current && !stale) return;
    const removed = transaction(this.#db, () => {
      if (readKv<number>(this.#db, WINDOWS_VERSION_KEY) === WINDOWS_VERSION) {
        return this.#sql("DELETE FROM memory_vectors WHERE embedder != ?").run(id).changes;
      }
      writeKv(this.#db, WINDOWS_VERSION_KEY, WINDOWS_VERSION);
      return this.#sql("DELETE FROM memory_vectors").run().changes;
    });
    if (Number(removed) > 0) this.#signatures = null;
  }

  /**
   * Files chunked another way (or before versions were recorded) are cut
   * again at the next sync: their recorded hashes are forgotten. Vectors are
   * kept by chunk text, so only chunks whose text changed are embedded again.
   */
  #rechunkIfStale(): void {
    if (readKv<number>(this.#db, CHUNKS_VERSION_KEY) === CHUNKS_VERSION) return;
    transaction(this.#db, () => {
      this.#sql("UPDATE memory_files SET hash = ''").run();
      writeKv(this.#db, CHUNKS_VERSION_KEY, CHUNKS_VERSION);
    });
  }

  /** The chunks changed: both searches' caches are stale. */
  #forgetChunks(): void {
    this.#signatures = null;
    this.#chunkCount = null;
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
        this.#sql<{ path: string; hash: string }>("SELECT path, hash FROM memory_files").all()
          .map((row) => [row.path, row.hash]),
      );
      const changed: string[] = [];
      const started = performance.now();
      let done = 0;
      for (const path of files) {
        if (await this.#indexFile(path, known.get(path))) changed.push(path);
        known.delete(path);
        onProgress?.(progressOf("files", ++done, files.length, started));
      }
      for (const gone of known.keys()) {
        await withWriteLock(this.#db, () => removeFile(this.#sql, gone));
        this.#forgetChunks();
        changed.push(gone);
      }
      if (waitForVectors) {
        await this.#vectors.running;
        await this.#vectors.embedPending(onProgress);
      } else this.#vectors.start();
      return changed;
    });
  }

  /** Indexes one file (relative to the memory directory) if it changed, or drops it if it is gone. */
  indexFile(path: string): Promise<boolean> {
    return this.#serial(async () => {
      const known = this.#sql<{ hash: string }>("SELECT hash FROM memory_files WHERE path = ?")
        .get(path);
      const changed = await this.#indexFile(path, known?.hash);
      this.#vectors.start();
      return changed;
    });
  }

  /** Deletes the whole index and builds it again from the files. */
  reindex(onProgress?: (progress: IndexProgress) => void): Promise<string[]> {
    this.#serial(async () => {
      // A deferred embedding must not write vectors for chunks about to go,
      // nor go on embedding them: it ends after the batches in flight.
      await this.#vectors.cancel();
      await withWriteLock(this.#db, () => {
        this.#db.exec("DELETE FROM memory_chunks");
        this.#db.exec("DELETE FROM memory_files");
      });
      this.#forgetChunks();
    });
    return this.sync(onProgress, true);
  }

  /** Waits until every chunk has its vectors (for tests, evals and `hob memory reindex`). */
  async settle(): Promise<void> {
    await this.#queue;
    while (this.#vectors.running) await this.#vectors.running;
  }

  stats(): IndexStats {
    const count = (sql: string, ...params: string[]) =>
      this.#sql<{ n: number }>(sql).one(...params).n;
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
   * Searches memory. Hybrid search fuses the BM25 and the vector rankings;
   * without an embedder (or while it loads, unless told to wait) it searches
   * by keywords alone.
   */
  async search(query: string, options: SearchOptions = {}): Promise<MemoryHit[]> {
    const { limit = 5, mode = "hybrid", waitForEmbedder = true } = options;
    const budget = options.budget ?? PASSAGE_CHARS_PER_HIT * limit;
    const useVectors = mode !== "keyword" && this.#embedder !== null &&
      (waitForEmbedder || this.#embedder.isReady());
    // Not loaded (not yet, or unloaded while unused): this search goes without, the next has it.
    if (mode !== "keyword" && this.#embedder && !useVectors) {
      this.#embedder.load().catch((error) => {
        // Closing the embedder ends a load in progress: nothing to report then.
        if (!this.#stopped) this.#warn(`the embedder does not load: ${error.message}`);
      });
    }
    // A chunk written a moment ago (remember_this) should be findable by meaning.
    if (useVectors && waitForEmbedder) await this.#awaitPendingVectors();
    // The query's embedding is computed in the embedder's Worker while BM25 runs here.
    // An embedder that fails (a provider that is down) leaves keyword search working.
    const vectorRanking = useVectors
      ? this.#vectorRanking(query).catch((error) => {
        this.#warn(`searching by keywords only: ${(error as Error).message}`);
        return [] as Scored[];
      })
      : Promise.resolve([] as Scored[]);
    // Each term's chunks are counted once: the ranking's counts give the passages' weights.
    const counts: TermCounts = new Map();
    const keywordRanking = mode === "vector" ? [] : this.#keywordRanking(query, counts);
    const fusion = options.fusion ?? this.#fusion;
    const vectors = (await vectorRanking).filter((candidate) =>
      candidate.score > fusion.minSimilarity
    );
    return this.#hits(fuse(keywordRanking, vectors, fusion), query, limit, budget, counts);
  }

  /**
   * Stops deferred embedding after the batch in progress (the vectors still
   * missing are made at the next start); resolves when it has stopped.
   */
  stop(): Promise<void> {
    this.#stopped = true;
    return this.#vectors.stop();
  }

  /** Waits a little for a deferred embedding in progress, so fresh chunks have vectors. */
  async #awaitPendingVectors(): Promise<void> {
    const running = this.#vectors.running;
    if (!running) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      running,
      new Promise((r) => timer = setTimeout(r, PENDING_WAIT_MS)),
    ]);
    clearTimeout(timer);
  }

  #keywordRanking(query: string, counts: TermCounts): Scored[] {
    // The count changes only with the chunks, like the signatures: cache it beside them.
    return keywordRanking(
      this.#sql,
      query,
      () => this.#chunkCount ??= countChunks(this.#sql),
      counts,
    );
  }

  #vectorRanking(query: string): Promise<Scored[]> {
    this.#queryVectors ??= new QueryVectors(this.#embedder!);
    return vectorRanking(
      this.#sql,
      (text) => this.#queryVectors!.embed(text),
      query,
      () => this.#signatures ??= loadSignatures(this.#sql, this.#embedder?.id ?? ""),
    );
  }

  /** The fused ranking as `limit` hits (see `diverse`), each showing its passage. */
  #hits(
    ordered: [number, number][],
    query: string,
    limit: number,
    budget: number,
    counts: TermCounts,
  ): MemoryHit[] {
    const row = this.#sql<ChunkRow>(
      "SELECT id, path, heading, start_line, end_line, text FROM memory_chunks WHERE id = ?",
    );
    const candidates = ordered.slice(0, limit * CANDIDATES_PER_HIT)
      .map(([id, score]) => ({ row: row.get(id), score }))
      .filter((c): c is { row: ChunkRow; score: number } => c.row !== undefined)
      .map((c) => ({ ...c, file: c.row.path }));
    const hits = diverse(candidates, limit).map(({ row, score }) => ({
      path: row.path,
      start_line: row.start_line,
      end_line: row.end_line,
      heading: row.heading,
      snippet: "",
      text: row.text,
      score: Number(score.toFixed(6)),
    }));
    return this.#passages(hits, query, budget, counts);
  }

  /**
   * The hits with their passages for `query` chosen again within `budget`
   * characters in all: for a caller that keeps only some of a search's hits.
   */
  passages(hits: MemoryHit[], query: string, budget: number): MemoryHit[] {
    return this.#passages(hits, query, budget, new Map());
  }

  /** `passages`, with the terms a search's keyword ranking already counted (`counts`) not counted again. */
  #passages(hits: MemoryHit[], query: string, budget: number, counts: TermCounts): MemoryHit[] {
    const weights = termWeights(
      this.#sql,
      query,
      () => this.#chunkCount ??= countChunks(this.#sql),
      counts,
    );
    const shown = passages(hits, weights, budget);
    return hits.map((hit, i) => ({ ...hit, snippet: shown[i] }));
  }

  /** Re-chunks one file if its content changed; returns whether it did. */
  async #indexFile(path: string, knownHash: string | undefined): Promise<boolean> {
    const target = { db: this.#db, sql: this.#sql, dir: this.#dir, embedder: this.#embedder };
    const changed = await indexFile(target, path, knownHash);
    if (changed) this.#forgetChunks();
    return changed;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(work, work);
    this.#queue = run.catch(() => {});
    return run;
  }
}
