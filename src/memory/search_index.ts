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

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { readKv, writeKv } from "../store/kv.ts";
import { statements } from "../store/statements.ts";
import { transaction } from "../store/transaction.ts";
import type { Embedder } from "./embedder.ts";
import { EmbeddingQueue } from "./embedding_queue.ts";
import { WINDOWS_VERSION } from "./embedding_windows.ts";
import { CHUNKS_VERSION } from "./chunker.ts";
import { defaultFusion, fuse, type Fusion, type Scored } from "./fusion.ts";
import { indexFile, type IndexProgress, listMarkdown, progressOf, removeFile } from "./indexing.ts";
import { countChunks, keywordRanking, snippet } from "./keyword_search.ts";
import { loadSignatures, QueryVectors, type Signatures, vectorRanking } from "./vector_search.ts";

// What other areas import from here, defined beside the step they belong to.
export { defaultFusion, type Fusion } from "./fusion.ts";
export { embeddingWindows } from "./embedding_windows.ts";
export { type IndexProgress, listMarkdown } from "./indexing.ts";

/** How long a search waits for vectors still being made before it goes without them. */
const PENDING_WAIT_MS = 3_000;
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
   */
  #dropStaleVectors(): void {
    const id = this.#embedder?.id ?? "";
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
        (this.#sql("SELECT path, hash FROM memory_files").all() as { path: string; hash: string }[])
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
        removeFile(this.#sql, gone);
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
      const known = this.#sql("SELECT hash FROM memory_files WHERE path = ?").get(path) as
        | { hash: string }
        | undefined;
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
      this.#db.exec("DELETE FROM memory_chunks");
      this.#db.exec("DELETE FROM memory_files");
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
   * Searches memory. Hybrid search fuses the BM25 and the vector rankings;
   * without an embedder (or while it loads, unless told to wait) it searches
   * by keywords alone.
   */
  async search(query: string, options: SearchOptions = {}): Promise<MemoryHit[]> {
    const { limit = 5, perFile = 2, mode = "hybrid", waitForEmbedder = true } = options;
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
    const keywordRanking = mode === "vector" ? [] : this.#keywordRanking(query);
    const fusion = options.fusion ?? this.#fusion;
    const vectors = (await vectorRanking).filter((candidate) =>
      candidate.score > fusion.minSimilarity
    );
    return this.#hits(fuse(keywordRanking, vectors, fusion), query, limit, perFile);
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

  #keywordRanking(query: string): Scored[] {
    // The count changes only with the chunks, like the signatures: cache it beside them.
    return keywordRanking(this.#sql, query, () => this.#chunkCount ??= countChunks(this.#sql));
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

  /** The fused ranking as hits: at most `perFile` chunks of one file, `limit` in all. */
  #hits(ordered: [number, number][], query: string, limit: number, perFile: number): MemoryHit[] {
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
