/**
 * Indexing the memory files: which Markdown files there are, and one file's
 * chunks written to the index when its content changed — in one transaction,
 * keeping the vectors of chunks that did not change. Knows the memory tables
 * and the chunker; nothing of searching or of making vectors.
 */

import type { DatabaseSync } from "node:sqlite";
import { join, relative, sep } from "node:path";
import type { Sql } from "../store/statements.ts";
import { timestamp } from "../store/timestamp.ts";
import { withWriteLock } from "../store/transaction.ts";
import { type Chunk, chunkMarkdown } from "./chunker.ts";
import type { Embedder } from "./embedder.ts";

/** Progress of a (re)index, for a progress bar or an event stream. */
export interface IndexProgress {
  phase: "files" | "embedding";
  /** Files read, or chunks given their vectors, so far in this phase. */
  done: number;
  total: number;
  /** Seconds since this phase began. */
  seconds: number;
  /** Its rate so far: files per second, or chunks per second while embedding. */
  perSecond: number;
}

/**
 * A phase's progress, `done` of `total` since `started` (a `performance.now()`).
 *
 * @example
 * ```ts
 * const started = performance.now();
 * onProgress(progressOf("embedding", 64, 300, started)); // { …, perSecond: 21.3 }
 * ```
 */
export function progressOf(
  phase: IndexProgress["phase"],
  done: number,
  total: number,
  started: number,
): IndexProgress {
  const seconds = (performance.now() - started) / 1000;
  return { phase, done, total, seconds, perSecond: seconds > 0 ? done / seconds : 0 };
}

/** The index a file is written to. */
export interface IndexTarget {
  db: DatabaseSync;
  /** The index's prepared statements. */
  sql: Sql;
  /** The memory directory; paths are relative to it. */
  dir: string;
  /** Whose vectors are kept for unchanged chunks. */
  embedder: Embedder | null;
}

/** A vector of an unchanged chunk, kept across a re-chunking. */
interface SavedVector {
  window: number;
  vector: Uint8Array;
  bits: Uint8Array;
}

/**
 * Re-chunks one file (relative to the memory directory) if its content
 * changed, or drops it if it is gone; returns whether the index changed. The
 * write waits, without blocking, while another program holds hob.db.
 *
 * @example
 * ```ts
 * if (await indexFile({ db, sql, dir, embedder }, "MEMORY.md", knownHash)) forgetCaches();
 * ```
 */
export async function indexFile(
  target: IndexTarget,
  path: string,
  knownHash: string | undefined,
): Promise<boolean> {
  const text = await readIfPresent(join(target.dir, path));
  if (text === null) {
    if (knownHash === undefined) return false;
    await withWriteLock(target.db, () => removeFile(target.sql, path));
    return true;
  }
  const hash = await sha256(text);
  if (hash === knownHash) return false;

  const chunks = chunkMarkdown(text);
  const hashes = await Promise.all(
    chunks.map((chunk) => sha256(`${chunk.heading}\n${chunk.text}`)),
  );
  await withWriteLock(
    target.db,
    () => writeChunks(target, { path, hash, size: text.length }, chunks, hashes),
  );
  return true;
}

/** Drops a file and its chunks (their vectors and FTS rows follow) from the index. */
export function removeFile(sql: IndexTarget["sql"], path: string): void {
  sql("DELETE FROM memory_chunks WHERE path = ?").run(path);
  sql("DELETE FROM memory_files WHERE path = ?").run(path);
}

/** Replaces a file's chunks; run inside a transaction. */
function writeChunks(
  target: IndexTarget,
  file: { path: string; hash: string; size: number },
  chunks: Chunk[],
  hashes: string[],
): void {
  const { sql, embedder } = target;
  // Vectors of chunks that did not change are kept, so appending to a file
  // embeds only what was appended.
  const reusable = savedVectors(target, file.path);
  sql("DELETE FROM memory_chunks WHERE path = ?").run(file.path);
  sql(
    `INSERT INTO memory_files (path, hash, size, indexed_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (path) DO UPDATE SET hash = excluded.hash, size = excluded.size, indexed_at = excluded.indexed_at`,
  ).run(file.path, file.hash, file.size, timestamp());
  const insert = sql(
    "INSERT INTO memory_chunks (path, seq, heading, start_line, end_line, text, hash) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const copy = sql(
    "INSERT INTO memory_vectors (chunk_id, window, embedder, vector, bits) VALUES (?, ?, ?, ?, ?)",
  );
  chunks.forEach((chunk, seq) => {
    const id = Number(
      insert.run(
        file.path,
        seq,
        chunk.heading,
        chunk.start_line,
        chunk.end_line,
        chunk.text,
        hashes[seq],
      ).lastInsertRowid,
    );
    for (const saved of reusable.get(hashes[seq]) ?? []) {
      copy.run(id, saved.window, embedder!.id, saved.vector, saved.bits);
    }
    reusable.delete(hashes[seq]);
  });
}

/** The vectors a file's chunks have now, by chunk hash. */
function savedVectors(target: IndexTarget, path: string): Map<string, SavedVector[]> {
  const reusable = new Map<string, SavedVector[]>();
  const old = target.sql<SavedVector & { hash: string }>(
    `SELECT c.hash, v.window, v.vector, v.bits FROM memory_chunks c
       JOIN memory_vectors v ON v.chunk_id = c.id AND v.embedder = ?
      WHERE c.path = ?`,
  ).all(target.embedder?.id ?? "", path);
  for (const row of old) {
    const list = reusable.get(row.hash) ?? [];
    list.push({ window: row.window, vector: row.vector, bits: row.bits });
    reusable.set(row.hash, list);
  }
  return reusable;
}

/** A file's text, or null when there is no such file. */
async function readIfPresent(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * Every Markdown file under `dir`, relative, with `/` separators; dot-files skipped.
 *
 * @example
 * ```ts
 * await listMarkdown(`${home}/memory`); // ["MEMORY.md", "logs/2026-11-24.md"]
 * ```
 */
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
