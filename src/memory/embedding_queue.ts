/**
 * The memory index's embedding queue: chunks that have no vectors yet are
 * embedded in batches, deferred or while a caller waits, and their
 * vectors written in one transaction per batch. Knows the memory tables and
 * the embedder; nothing of how the vectors are searched.
 */

import type { DatabaseSync, StatementSync } from "node:sqlite";
import { transaction } from "../store/transaction.ts";
import type { Embedder } from "./embedder.ts";
import { embeddingWindows } from "./embedding_windows.ts";
import type { IndexProgress } from "./indexing.ts";
import { signBits, toBlob } from "./vectors.ts";

/** Chunks embedded per batch while indexing. */
const EMBED_BATCH = 64;

/** What the queue works on. */
export interface EmbeddingQueueOptions {
  db: DatabaseSync;
  /** The index's prepared statements. */
  sql: (sql: string) => StatementSync;
  /** Without one, the queue does nothing. */
  embedder: Embedder | null;
  /** Chunks still without vectors, for progress. */
  pending: () => number;
  /** Called after each batch is written (cached signatures are stale). */
  onVectors: () => void;
  /** Reports a failed deferred run (it is tried again at the next start). */
  warn: (message: string) => void;
}

/**
 * Embeds the chunks that have no vectors. One deferred run at a time;
 * stopping ends it after the batch in progress.
 *
 * @example
 * ```ts
 * const queue = new EmbeddingQueue({ db, sql, embedder, pending, onVectors, warn });
 * queue.start();
 * await queue.stop();
 * ```
 */
export class EmbeddingQueue {
  readonly #options: EmbeddingQueueOptions;
  #running: Promise<void> | null = null;
  #stopped = false;

  constructor(options: EmbeddingQueueOptions) {
    this.#options = options;
  }

  /** The deferred run in progress, or null. */
  get running(): Promise<void> | null {
    return this.#running;
  }

  /** Embeds chunks that have no vectors yet, deferred, while nobody waits. */
  start(): void {
    if (!this.#options.embedder || this.#running || this.#stopped) return;
    this.#running = this.embedPending().catch((error) => {
      // Chunks keep waiting for vectors; the next write or start tries again.
      if (!this.#stopped) {
        this.#options.warn(`embedding failed, will retry later: ${(error as Error).message}`);
      }
    }).finally(() => {
      this.#running = null;
    });
  }

  /**
   * Stops deferred embedding after the batch in progress (the vectors still
   * missing are made at the next start); resolves when it has stopped.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }

  /** Embeds every chunk without vectors, batch after batch, until none is left or the queue stops. */
  async embedPending(onProgress?: (progress: IndexProgress) => void): Promise<void> {
    const { embedder, sql } = this.#options;
    if (!embedder) return;
    const missing = () =>
      sql(
        `SELECT id, heading, text FROM memory_chunks c
          WHERE NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.chunk_id = c.id AND v.embedder = ?)
          ORDER BY id LIMIT ?`,
      ).all(embedder.id, EMBED_BATCH) as { id: number; heading: string; text: string }[];
    const total = this.#options.pending();
    let done = 0;
    for (let batch = missing(); batch.length > 0 && !this.#stopped; batch = missing()) {
      await this.#embedBatch(embedder, batch);
      this.#options.onVectors();
      done += batch.length;
      onProgress?.({ phase: "embedding", done: Math.min(done, total), total });
    }
  }

  /** Embeds one batch's windows and writes their vectors in one transaction. */
  async #embedBatch(
    embedder: Embedder,
    batch: { id: number; heading: string; text: string }[],
  ): Promise<void> {
    const { db, sql } = this.#options;
    const windows = batch.flatMap((chunk) =>
      embeddingWindows(chunk, embedder.maxChars).map((text, window) => ({
        id: chunk.id,
        window,
        text,
      }))
    );
    const vectors = await embedder.embed(windows.map((w) => w.text), "document");
    const insert = sql(
      "INSERT OR REPLACE INTO memory_vectors (chunk_id, window, embedder, vector, bits) VALUES (?, ?, ?, ?, ?)",
    );
    const exists = sql("SELECT 1 FROM memory_chunks WHERE id = ?");
    transaction(db, () => {
      windows.forEach((w, i) => {
        // The chunk may have been replaced while its vectors were computed.
        if (!exists.get(w.id)) return;
        const bits = signBits(vectors[i]);
        insert.run(w.id, w.window, embedder.id, toBlob(vectors[i]), new Uint8Array(bits.buffer));
      });
    });
  }
}
