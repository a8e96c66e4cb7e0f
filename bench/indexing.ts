/**
 * Indexing with the built-in embedder, beside its own floor: the model alone
 * embedding the very windows the index embeds, in the same run. A ratio near
 * 1 means indexing is model-bound — chunking, SQLite and batching add little.
 */

import { join } from "node:path";
import { embeddingWindows } from "../src/memory/embedding_windows.ts";
import { MemoryIndex } from "../src/memory/search_index.ts";
import { createUseLiteEmbedder } from "../src/memory/use_lite.ts";
import { openDatabase } from "../src/store/database.ts";
import { seeded, writeCorpus } from "./memory.ts";

/** Chunks indexed (~900 characters each, as real notes cut). */
const CHUNKS = 150;

/** Indexing and model-alone rates. */
export interface IndexingResult {
  chunks: number;
  windows: number;
  /** Seconds the index took, files to vectors. */
  indexSeconds: number;
  /** Seconds the model alone took for the same windows. */
  modelSeconds: number;
}

/** Indexes a synthetic corpus with USE-lite, then embeds its windows with the model alone. */
export async function measureIndexing(chunks = CHUNKS): Promise<IndexingResult> {
  const home = await Deno.makeTempDir({ prefix: "hob-bench-indexing-" });
  const embedder = createUseLiteEmbedder();
  try {
    await embedder.load();
    await embedder.embed(["warm the model up"], "query");
    await writeCorpus(join(home, "memory"), chunks, seeded(7));
    const db = openDatabase(join(home, "hob.db"));
    const index = new MemoryIndex(db, join(home, "memory"), embedder);
    let started = performance.now();
    await index.sync(undefined, true);
    const indexSeconds = (performance.now() - started) / 1000;
    const stats = index.stats();
    const rows = db.prepare("SELECT heading, text FROM memory_chunks").all() as {
      heading: string;
      text: string;
    }[];
    const windows = rows.flatMap((chunk) => embeddingWindows(chunk, embedder.maxChars));
    started = performance.now();
    await embedder.embed(windows, "document");
    const modelSeconds = (performance.now() - started) / 1000;
    await index.stop();
    db.close();
    return { chunks: stats.chunks, windows: stats.vectors, indexSeconds, modelSeconds };
  } finally {
    embedder.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** One line: indexing's rate, the model's, and their ratio. */
export function formatIndexing(r: IndexingResult): string {
  return `indexing with USE-lite: ${(r.chunks / r.indexSeconds).toFixed(1)} chunks/s, ${
    (r.windows / r.indexSeconds).toFixed(1)
  } windows/s (${r.chunks} chunks, ${r.windows} windows); the model alone on the same windows ${
    (r.windows / r.modelSeconds).toFixed(1)
  } windows/s: indexing takes ${(r.indexSeconds / r.modelSeconds).toFixed(2)}× the model's time`;
}

if (import.meta.main) console.log(formatIndexing(await measureIndexing()));
