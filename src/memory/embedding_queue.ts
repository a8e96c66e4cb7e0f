/**
 * The memory index's embedding queue: chunks that have no vectors yet are
 * embedded in batches, deferred or while a caller waits, and their
 * vectors written in one transaction per batch. Knows the memory tables and
 * the embedder; nothing of how the vectors are searched.
 */

import type { DatabaseSync } from "node:sqlite";
import type { Sql } from "../store/statements.ts";
import { withWriteLock } from "../store/transaction.ts";
import type { Embedder } from "./embedder.ts";
import { embeddingWindows } from "./embedding_windows.ts";
import { type IndexProgress, progressOf } from "./indexing.ts";
import { signBits, toBlob } from "./vectors.ts";

/** Chunks embedded per batch while indexing. */
const EMBED_BATCH = 64;

/** A chunk waiting for its vectors. */
type PendingChunk = { id: number; heading: string; text: string };

/** What the queue works on. */
export interface EmbeddingQueueOptions {
  db: DatabaseSync;
  /** The index's prepared statements. */
  sql: Sql;
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
 * Embeds the chunks that have no vectors. One deferred run at a time, with
 * two batches in flight; stopping ends it after those.
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
  /** Counts cancels: a run goes on only while it is the one it started in. */
  #generation = 0;

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
   * Ends the deferred run in progress after the batches in flight, without
   * stopping the queue: the next start or `embedPending` embeds what is left.
   * A reindex does this rather than wait for vectors of chunks it will delete.
   */
  async cancel(): Promise<void> {
    this.#generation++;
    await this.#running;
  }

  /**
   * Stops deferred embedding after the batches in flight (the vectors still
   * missing are made at the next start); resolves when it has stopped.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }

  /**
   * Embeds every chunk without vectors, batch after batch, until none is left
   * or the queue stops. The next batch is asked for while the one before is
   * still being embedded, so every model thread has work between batches.
   */
  async embedPending(onProgress?: (progress: IndexProgress) => void): Promise<void> {
    const { embedder } = this.#options;
    if (!embedder) return;
    const total = this.#options.pending();
    const started = performance.now();
    let done = 0;
    const report = (count: number) => {
      this.#options.onVectors();
      done = Math.min(done + count, total);
      onProgress?.(progressOf("embedding", done, total, started));
    };
    let previous: Promise<void> = Promise.resolve();
    // Chunks at or below `after` are in a batch already asked for.
    let after = 0;
    const generation = this.#generation;
    while (!this.#stopped && generation === this.#generation) {
      const batch = this.#missing(embedder, after);
      if (batch.length === 0) {
        await previous;
        // Once more from the start: a chunk written meanwhile may have taken a freed id.
        if (after === 0) break;
        after = 0;
        continue;
      }
      after = batch[batch.length - 1].id;
      const current = this.#embedBatch(embedder, batch).then(() => report(batch.length));
      // Handled here so a failure while the batch before is awaited is not "unhandled";
      // awaiting `current` below still throws it.
      current.catch(() => {});
      await previous;
      previous = current;
    }
    await previous;
  }

  /** Up to a batch of chunks without vectors, after the chunk `after`, by id. */
  #missing(embedder: Embedder, after: number): PendingChunk[] {
    return this.#options.sql<PendingChunk>(
      `SELECT id, heading, text FROM memory_chunks c
        WHERE id > ? AND NOT EXISTS
              (SELECT 1 FROM memory_vectors v WHERE v.chunk_id = c.id AND v.embedder = ?)
        ORDER BY id LIMIT ?`,
    ).all(after, embedder.id, EMBED_BATCH);
  }

  /** Embeds one batch's windows and writes their vectors in one transaction. */
  async #embedBatch(
    embedder: Embedder,
    batch: PendingChunk[],
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
    await withWriteLock(db, () => {
      windows.forEach((w, i) => {
        // The chunk may have been replaced while its vectors were computed.
        if (!exists.get(w.id)) return;
        const bits = signBits(vectors[i]);
        insert.run(w.id, w.window, embedder.id, toBlob(vectors[i]), new Uint8Array(bits.buffer));
      });
    });
  }
}
