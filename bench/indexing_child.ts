/**
 * One indexing run of one checkout of hob, in a process of its own, for
 * bench/indexing.ts: the checkout's own index and embedder (imported from
 * `--root`, never from this tree) index the Markdown under `--memory` into a
 * fresh database, and the figures are printed as one line of JSON. Run with
 * the checkout's deno.json, so both sides resolve their packages alike.
 *
 *   deno run -A --unstable-worker-options --unstable-cron --config ROOT/deno.json \
 *     bench/indexing_child.ts --root ROOT --memory DIR [--model-alone]
 */

import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

/** How often the resident memory is sampled for its peak. */
const RSS_SAMPLE_MS = 50;

/** What one run measured; bench/indexing.ts reads it. */
export interface ChildResult {
  chunks: number;
  windows: number;
  /** Seconds from files to every vector written. */
  seconds: number;
  /** CPU seconds the process spent meanwhile, all threads: / `seconds` is the cores kept busy. */
  cpuSeconds: number;
  /** The most resident memory seen while indexing, in bytes. */
  peakRss: number;
  /**
   * Cores other processes kept busy meanwhile (Linux: /proc/stat, less this
   * process), so a run that shared the machine can be told apart; null elsewhere.
   */
  otherCores: number | null;
  /** Seconds the embedder alone took for the same windows, with `--model-alone`. */
  modelSeconds?: number;
}

// The checkout's modules, by the shapes this script uses (the same in every revision measured).
interface Embedder {
  maxChars: number;
  load(): Promise<void>;
  embed(texts: string[], kind: "document" | "query"): Promise<Float32Array[]>;
  close(): void;
}
interface Index {
  sync(onProgress: undefined, waitForVectors: boolean): Promise<string[]>;
  stats(): { chunks: number; vectors: number };
  stop(): Promise<void>;
}
interface Database {
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}

async function run(root: string, memory: string, modelAlone: boolean): Promise<ChildResult> {
  const module = (path: string) => import(pathToFileURL(join(root, path)).href);
  const [{ MemoryIndex }, { createUseLiteEmbedder }, { openDatabase }, { embeddingWindows }] =
    await Promise.all([
      module("src/memory/search_index.ts"),
      module("src/memory/use_lite.ts"),
      module("src/store/database.ts"),
      module("src/memory/embedding_windows.ts"),
    ]);
  const home = await Deno.makeTempDir({ prefix: "hob-bench-indexing-" });
  const embedder: Embedder = createUseLiteEmbedder();
  try {
    await embedder.load();
    await embedder.embed(["warm the model up"], "query");
    const db: Database = openDatabase(`${home}/hob.db`);
    const index: Index = new MemoryIndex(db, memory, embedder);
    let peakRss = Deno.memoryUsage().rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
    }, RSS_SAMPLE_MS);
    const cpu = process.cpuUsage();
    const machine = machineBusy();
    const started = performance.now();
    await index.sync(undefined, true);
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    const busy = machineBusy();
    clearInterval(sampler);
    const { chunks, vectors } = index.stats();
    const cpuSeconds = (user + system) / 1e6;
    const result: ChildResult = {
      chunks,
      windows: vectors,
      seconds,
      cpuSeconds,
      peakRss,
      otherCores: busy === null || machine === null
        ? null
        : Math.max(0, (busy - machine) / seconds - cpuSeconds / seconds),
    };
    if (modelAlone) {
      const rows = db.prepare("SELECT heading, text FROM memory_chunks").all() as {
        heading: string;
        text: string;
      }[];
      const windows = rows.flatMap((chunk) => embeddingWindows(chunk, embedder.maxChars));
      const start = performance.now();
      await embedder.embed(windows, "document");
      result.modelSeconds = (performance.now() - start) / 1000;
    }
    await index.stop();
    db.close();
    return result;
  } finally {
    embedder.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** CPU seconds every process has spent since boot (Linux), or null where it cannot be read. */
export function machineBusy(): number | null {
  try {
    const [, ...fields] = Deno.readTextFileSync("/proc/stat").split("\n")[0].trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq] = fields.map(Number);
    // The kernel counts in USER_HZ ticks, 100 a second on every Linux.
    return (user + nice + system + irq + softirq) / 100;
  } catch {
    return null;
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      root: { type: "string" },
      memory: { type: "string" },
      "model-alone": { type: "boolean", default: false },
    },
  });
  if (!values.root || !values.memory) {
    console.error("indexing_child: --root and --memory are required");
    Deno.exit(2);
  }
  console.log(JSON.stringify(await run(values.root, values.memory, values["model-alone"])));
  Deno.exit(0);
}
