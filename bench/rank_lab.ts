/**
 * `deno run -A --unstable-worker-options bench/rank_lab.ts [SET…]`: the inner
 * loop for ranking experiments. Indexes the golden sets once (USE-lite's
 * vectors cached on disk by text: the model is deterministic, so a new
 * windowing embeds only the texts it has not seen, and a rerun takes seconds
 * instead of a minute), then reruns every query under each variant in memory
 * and prints R@1 / R@3 / MRR / answer@3 per set, and R@1 / MRR for each half
 * of the personal set (queries of even and of odd index), so a change can be
 * checked on both halves.
 *
 * Variants rank with the real keyword ranking and fusion, and with exact
 * cosines over every window (the real search re-ranks the 200 windows nearest
 * by sign bits: "hob search" is that, and matches `deno task eval:memory`).
 * An experiment imports this file and calls {@linkcode runLab} with its own
 * variants (see bench/RESULTS.md, issue 31, for what was tried).
 */

import { join } from "node:path";
import { tmpdir } from "node:os";
import { openDatabase } from "../src/store/database.ts";
import { type Sql, statements } from "../src/store/statements.ts";
import type { Embedder } from "../src/memory/embedder.ts";
import { MemoryIndex } from "../src/memory/search_index.ts";
import { createUseLiteEmbedder } from "../src/memory/use_lite.ts";
import { embeddingWindows } from "../src/memory/embedding_windows.ts";
import { countChunks, keywordRanking } from "../src/memory/keyword_search.ts";
import { defaultFusion, fuse, type Fusion, type Scored } from "../src/memory/fusion.ts";
import { dot } from "../src/memory/vectors.ts";
import { copyTree } from "./eval_memory.ts";

export type { Scored };

/** Where the vectors are kept between runs, one `[text, vector]` a line. */
const CACHE = join(tmpdir(), "hob-use-lite-vectors.jsonl");

/** The sets a run without arguments uses; conversations only once it exists. */
const SETS: Record<string, string> = {
  membot: new URL("./data/membot/", import.meta.url).pathname,
  personal: new URL("./data/personal/", import.meta.url).pathname,
  conversations: new URL("./data/conversations/", import.meta.url).pathname,
};

export interface Query {
  query: string;
  expect: string;
  kind: string;
  answer?: string;
}

export interface Chunk {
  id: number;
  path: string;
  heading: string;
  start_line: number;
  text: string;
}

/** USE-lite behind a cache on disk. */
export class CachedEmbedder implements Embedder {
  readonly id = "use-lite@0.2.0";
  readonly maxChars = 450;
  readonly #inner = createUseLiteEmbedder();
  readonly #cache = new Map<string, Float32Array>();
  #fresh: string[] = [];

  async open(): Promise<void> {
    try {
      for (const line of (await Deno.readTextFile(CACHE)).split("\n")) {
        if (!line) continue;
        const [text, values] = JSON.parse(line) as [string, number[]];
        this.#cache.set(text, Float32Array.from(values));
      }
    } catch { /* no cache yet */ }
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((t) => !this.#cache.has(t)))];
    if (missing.length) {
      const vectors = await this.#inner.embed(missing, "document");
      missing.forEach((t, i) => this.#cache.set(t, vectors[i]));
      this.#fresh.push(...missing);
    }
    return texts.map((t) => this.#cache.get(t)!);
  }

  async flush(): Promise<void> {
    if (!this.#fresh.length) return;
    const lines = this.#fresh.map((t) => JSON.stringify([t, [...this.#cache.get(t)!]]));
    await Deno.writeTextFile(CACHE, lines.join("\n") + "\n", { append: true });
    this.#fresh = [];
  }

  isReady = () => true;
  load = () => Promise.resolve();
  close(): void {
    this.#inner.close();
  }
}

type Windows = Map<number, { text: string; vector: Float32Array }[]>;

/** One golden set, indexed. */
export interface LabSet {
  name: string;
  queries: Query[];
  chunks: Chunk[];
  index: MemoryIndex;
  sql: Sql;
  count: number;
  queryVectors: Float32Array[];
  /** Each windowing's windows of every chunk (by id), with their vectors. */
  windows: Map<string, Windows>;
  close(): Promise<void>;
}

export async function openSet(
  name: string,
  dir: string,
  embedder: CachedEmbedder,
): Promise<LabSet> {
  const queries = JSON.parse(await Deno.readTextFile(join(dir, "queries.json"))) as Query[];
  const home = await Deno.makeTempDir({ prefix: "hob-lab-" });
  await copyTree(join(dir, "corpus"), join(home, "memory"));
  const db = openDatabase(join(home, "hob.db"));
  const index = new MemoryIndex(db, join(home, "memory"), embedder);
  await index.sync(undefined, true);
  const sql = statements(db);
  const chunks = sql<Chunk>("SELECT id, path, heading, start_line, text FROM memory_chunks").all();
  return {
    name,
    queries,
    chunks,
    index,
    sql,
    count: countChunks(sql),
    queryVectors: await embedder.embed(queries.map((q) => q.query)),
    windows: new Map(),
    close: async () => {
      await index.stop();
      db.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** The texts a chunk is embedded as. */
export type Windowing = (chunk: Chunk) => string[];

export const defaultWindowing: Windowing = (chunk) => embeddingWindows(chunk, 450);

async function windowsOf(
  set: LabSet,
  [name, windowing]: [string, Windowing],
  embedder: CachedEmbedder,
): Promise<Windows> {
  let windows = set.windows.get(name);
  if (windows) return windows;
  windows = new Map();
  for (const chunk of set.chunks) {
    const texts = windowing(chunk);
    const vectors = await embedder.embed(texts);
    windows.set(chunk.id, texts.map((text, i) => ({ text, vector: vectors[i] })));
  }
  await embedder.flush();
  set.windows.set(name, windows);
  return windows;
}

/** What a variant ranks one query with. */
export interface Context {
  set: LabSet;
  q: Query;
  qi: number;
  qv: Float32Array;
  windows: Windows;
  chunkById: Map<number, Chunk>;
}

export interface Variant {
  name: string;
  /** Windows other than hob's, under a name of their own. */
  windowing?: [string, Windowing];
  /** The text embedded for a query (default: the query itself). */
  queryText?: (query: string) => string;
  /** Chunk ids with scores, best first. */
  rank(ctx: Context): [number, number][] | Promise<[number, number][]>;
}

/** The keyword ranking as hob computes it. */
export function keywordScores(ctx: Context): Scored[] {
  return keywordRanking(ctx.set.sql, ctx.q.query, () => ctx.set.count);
}

/** Every chunk by its windows' exact cosines (by default its best window's), best 50 first. */
export function vectorScores(
  ctx: Context,
  qv = ctx.qv,
  aggregate: (scores: number[]) => number = (s) => Math.max(...s),
): Scored[] {
  const out: Scored[] = [];
  for (const [id, ws] of ctx.windows) {
    out.push({ id, score: aggregate(ws.map((w) => dot(qv, w.vector))) });
  }
  return out.sort((a, b) => b.score - a.score).slice(0, 50);
}

/** Fusion as hob does it, the vector floor applied first. */
export function hybrid(kw: Scored[], vec: Scored[], fusion: Fusion = defaultFusion("use-lite")) {
  return fuse(kw, vec.filter((v) => v.score > fusion.minSimilarity), fusion);
}

/** hob's own search, sign-bit pass included: what `deno task eval:memory` measures. */
export async function realSearch(ctx: Context): Promise<[number, number][]> {
  const hits = await ctx.set.index.search(ctx.q.query, { limit: 40 });
  const ids = new Map(ctx.set.chunks.map((c) => [`${c.path}:${c.start_line}`, c.id]));
  return hits.map((hit) => [ids.get(`${hit.path}:${hit.start_line}`)!, hit.score]);
}

export interface Figures {
  n: number;
  r1: number;
  r3: number;
  mrr: number;
  a3: number;
  na: number;
}

const flat = (text: string) => text.toLowerCase().replace(/\s+/g, " ");

/** One variant's figures on one set: overall, even half, odd half. */
export async function score(
  set: LabSet,
  variant: Variant,
  embedder: CachedEmbedder,
  misses?: string[],
): Promise<Figures[]> {
  const windows = await windowsOf(set, variant.windowing ?? ["hob", defaultWindowing], embedder);
  const chunkById = new Map(set.chunks.map((c) => [c.id, c]));
  const figures = [0, 1, 2].map(() => ({ n: 0, r1: 0, r3: 0, mrr: 0, a3: 0, na: 0 }));
  const qvs = variant.queryText
    ? await embedder.embed(set.queries.map((q) => variant.queryText!(q.query)))
    : set.queryVectors;
  await embedder.flush();
  for (const [qi, q] of set.queries.entries()) {
    const ranked = await variant.rank({ set, q, qi, qv: qvs[qi], windows, chunkById });
    const docs = [...new Set(ranked.map(([id]) => chunkById.get(id)!.path))];
    const rank = docs.indexOf(q.expect) + 1;
    // The top 3 chunks, as a search of 3 returns them (the eval's answer@3).
    const top3 = ranked.slice(0, 3).map(([id]) => flat(chunkById.get(id)!.text));
    const answered = q.answer ? top3.some((t) => t.includes(flat(q.answer!))) : undefined;
    for (const f of [figures[0], figures[1 + qi % 2]]) {
      f.n++;
      if (rank === 1) f.r1++;
      if (rank >= 1 && rank <= 3) f.r3++;
      if (rank >= 1 && rank <= 10) f.mrr += 1 / rank;
      if (answered !== undefined) f.na++;
      if (answered) f.a3++;
    }
    if (misses && rank !== 1) {
      misses.push(`[${q.kind}] "${q.query}" → ${q.expect} at ${rank || "—"}, got ${docs[0]}`);
    }
  }
  return figures;
}

function format(f: Figures): string {
  const x = (v: number) => v.toFixed(3);
  return `${x(f.r1 / f.n)} ${x(f.r3 / f.n)} ${x(f.mrr / f.n)} ${f.na ? x(f.a3 / f.na) : "  —  "}`;
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/**
 * Prints every variant's figures on the sets named (default: membot and
 * personal, and conversations once it exists; `LAB_SETS=a,b` or arguments).
 */
export async function runLab(variants: Variant[], names?: string[]): Promise<void> {
  const wanted = names?.length ? names : Deno.env.get("LAB_SETS")?.split(",") ??
    Object.keys(SETS).filter((name) => name !== "conversations");
  if (
    !names?.length && !Deno.env.get("LAB_SETS") &&
    await exists(join(SETS.conversations, "queries.json"))
  ) {
    wanted.push("conversations");
  }
  const embedder = new CachedEmbedder();
  await embedder.open();
  const sets: LabSet[] = [];
  try {
    for (const name of wanted) sets.push(await openSet(name, SETS[name] ?? name, embedder));
    await embedder.flush();
    const head = sets.map((s) => `${s.name.slice(0, 13).padEnd(13)} R@1   R@3   MRR   a@3`);
    console.log(
      `${"variant".padEnd(40)} ${head.join(" | ")} | personal even R@1 MRR | odd R@1 MRR`,
    );
    for (const variant of variants) {
      const columns: string[] = [];
      let halves = "";
      for (const set of sets) {
        const [all, even, odd] = await score(set, variant, embedder);
        columns.push(`${"".padEnd(13)} ${format(all)}`);
        const half = (f: Figures) => `${(f.r1 / f.n).toFixed(3)} ${(f.mrr / f.n).toFixed(3)}`;
        if (set.name === "personal") halves = ` | ${half(even)} | ${half(odd)}`;
      }
      console.log(`${variant.name.padEnd(40)} ${columns.join(" | ")}${halves}`);
    }
  } finally {
    for (const set of sets) await set.close();
    embedder.close();
  }
}

if (import.meta.main) {
  await runLab([
    { name: "hob search (sign-bit pass)", rank: realSearch },
    { name: "hybrid, exact cosines", rank: (c) => hybrid(keywordScores(c), vectorScores(c)) },
    { name: "keyword only", rank: (c) => keywordScores(c).map((s) => [s.id, s.score]) },
    { name: "vector only, exact", rank: (c) => vectorScores(c).map((s) => [s.id, s.score]) },
  ], Deno.args);
}
