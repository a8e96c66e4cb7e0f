/**
 * `deno task eval:memory [DIR]`: indexes a golden corpus into a fresh home and
 * prints Recall@1/3/5, MRR@10 and answer@3 per query kind and overall, for
 * hybrid search and for keyword-only and vector-only, so the fusion's gain is
 * visible. DIR holds `corpus/` and `queries.json`; without one, both golden
 * sets run: membot's (bench/data/membot/, vendored with its MIT licence),
 * which BM25 alone saturates, and hob's own harder one (bench/data/personal/),
 * mostly questions that share few words with their answers.
 */

import { join } from "node:path";
import { openDatabase } from "../src/store/database.ts";
import type { Embedder } from "../src/memory/embedder.ts";
import {
  defaultFusion,
  type Fusion,
  type IndexStats,
  MemoryIndex,
} from "../src/memory/search_index.ts";
import { createUseLiteEmbedder } from "../src/memory/use_lite.ts";

/** The golden sets a run without arguments evaluates, by name. */
export const GOLDEN_SETS: Record<string, string> = {
  membot: new URL("./data/membot/", import.meta.url).pathname,
  personal: new URL("./data/personal/", import.meta.url).pathname,
};

interface Query {
  query: string;
  expect: string;
  kind: string;
  answer?: string;
}

/** Counts for one mode and one kind of query (or "overall"). */
export interface Scores {
  n: number;
  r1: number;
  r3: number;
  r5: number;
  mrr: number;
  answered: number;
  withAnswer: number;
}

/** Options for {@linkcode evaluateMemory}. */
export interface EvalOptions {
  /**
   * The embedder, owned by the caller (left open).
   * @default {a fresh USE-lite embedder, closed at the end}
   */
  embedder?: Embedder;
}

/** What one query found in one mode. */
interface Outcome {
  /** 1-based rank of the expected document among distinct documents; 0 when absent. */
  rank: number;
  top: string | undefined;
  /** Whether the answer is in a top-3 chunk's text (undefined without an answer). */
  answered: boolean | undefined;
}

type Mode = { name: string; mode: "hybrid" | "keyword" | "vector"; fusion?: Fusion };

/** The rows: hob's default, the alternatives it was chosen over, and each ranking alone. */
const MODES: Mode[] = [
  { name: "hybrid", mode: "hybrid" },
  {
    name: "hybrid, scaled by best",
    mode: "hybrid",
    fusion: {
      method: "score",
      keywordWeight: 1,
      vectorWeight: 0.5,
      minSimilarity: 0.25,
      scale: "best",
      fullSimilarity: 1,
    },
  },
  {
    name: "hybrid, score fusion 1:1",
    mode: "hybrid",
    fusion: {
      method: "score",
      keywordWeight: 1,
      vectorWeight: 1,
      minSimilarity: 0.35,
      scale: "best",
      fullSimilarity: 1,
    },
  },
  {
    name: "hybrid, RRF",
    mode: "hybrid",
    fusion: {
      method: "rrf",
      keywordWeight: 1,
      vectorWeight: 1,
      minSimilarity: 0,
      scale: "best",
      fullSimilarity: 1,
    },
  },
  { name: "keyword only", mode: "keyword" },
  { name: "vector only", mode: "vector" },
];

/** Line breaks inside the answer's words do not count against it. */
const flat = (text: string) => text.toLowerCase().replace(/\s+/g, " ");

/**
 * Indexes `dir`'s corpus, runs its queries in every mode and returns the printed
 * report with the overall scores per mode.
 *
 * @example
 * ```ts
 * const { overall } = await evaluateMemory(GOLDEN_SETS.membot);
 * overall["hybrid"].r1 / overall["hybrid"].n; // Recall@1
 * ```
 */
export async function evaluateMemory(
  dir: string,
  options: EvalOptions = {},
): Promise<{ report: string; overall: Record<string, Scores>; stats: IndexStats }> {
  const queries = JSON.parse(await Deno.readTextFile(join(dir, "queries.json"))) as Query[];
  const home = await Deno.makeTempDir({ prefix: "hob-eval-" });
  const memory = join(home, "memory");
  await copyTree(join(dir, "corpus"), memory);
  const db = openDatabase(join(home, "hob.db"));
  const embedder = options.embedder ?? createUseLiteEmbedder();
  try {
    const index = new MemoryIndex(db, memory, embedder);
    const started = performance.now();
    await index.sync(undefined, true);
    const seconds = (performance.now() - started) / 1000;
    const stats = index.stats();
    // Every mode for one query, then the next: the query's vector is made once, not once a mode.
    const outcomes: Outcome[][] = MODES.map(() => []);
    for (const q of queries) {
      for (const [m, mode] of MODES.entries()) outcomes[m].push(await runQuery(index, q, mode));
    }
    const byMode = Object.fromEntries(
      MODES.map(({ name }, m) => [name, tally(queries, outcomes[m])]),
    );
    const misses = describeMisses(queries, outcomes[MODES.findIndex((m) => m.name === "hybrid")]);
    const header = [
      `memory eval (${dir}): ${queries.length} queries over ${stats.files} documents (${stats.chunks} chunks, ${stats.vectors} vectors, embedder ${stats.embedder}); indexed in ${
        seconds.toFixed(1)
      } s`,
      `default fusion: ${JSON.stringify(defaultFusion(stats.embedder))}`,
    ];
    const kinds = ["overall", ...new Set(queries.map((q) => q.kind))];
    const lines = [...header, ...formatTable(byMode, kinds)];
    if (misses.length) lines.push("hybrid misses:", ...misses);
    const overall = Object.fromEntries(
      MODES.map(({ name }) => [name, byMode[name].get("overall")!]),
    );
    return { report: lines.join("\n"), overall, stats };
  } finally {
    if (!options.embedder) embedder.close();
    db.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** One query in one mode: where its document ranks, and whether a top-3 chunk holds the answer. */
async function runQuery(index: MemoryIndex, q: Query, mode: Mode): Promise<Outcome> {
  const options = { mode: mode.mode, fusion: mode.fusion };
  const ranked = await index.search(q.query, { ...options, limit: 40, perFile: 40 });
  const docs = [...new Set(ranked.map((hit) => hit.path))];
  const top3 = (await index.search(q.query, { ...options, limit: 3 })).map((hit) => flat(hit.text));
  return {
    rank: docs.indexOf(q.expect) + 1,
    top: docs[0],
    answered: q.answer ? top3.some((text) => text.includes(flat(q.answer!))) : undefined,
  };
}

/** The scores of one mode per kind of query and overall. */
function tally(queries: Query[], outcomes: Outcome[]): Map<string, Scores> {
  const table = new Map<string, Scores>();
  queries.forEach((q, i) => {
    const { rank, answered } = outcomes[i];
    for (const key of [q.kind, "overall"]) {
      const s = table.get(key) ??
        { n: 0, r1: 0, r3: 0, r5: 0, mrr: 0, answered: 0, withAnswer: 0 };
      s.n++;
      if (rank === 1) s.r1++;
      if (rank >= 1 && rank <= 3) s.r3++;
      if (rank >= 1 && rank <= 5) s.r5++;
      if (rank >= 1 && rank <= 10) s.mrr += 1 / rank;
      if (answered !== undefined) {
        s.withAnswer++;
        if (answered) s.answered++;
      }
      table.set(key, s);
    }
  });
  return table;
}

function describeMisses(queries: Query[], outcomes: Outcome[]): string[] {
  return queries.flatMap((q, i) => {
    const { rank, top, answered } = outcomes[i];
    const lines = [];
    if (answered === false) {
      lines.push(`  [${q.kind}] "${q.query}" → answer "${q.answer}" not in the top 3 chunks`);
    }
    if (rank !== 1) {
      lines.push(
        `  [${q.kind}] "${q.query}" → expected ${q.expect} at rank ${rank || "—"}, got ${top}`,
      );
    }
    return lines;
  });
}

function formatTable(byMode: Record<string, Map<string, Scores>>, kinds: string[]): string[] {
  const lines = [
    `${"mode".padEnd(26)} ${"kind".padEnd(10)}   n   R@1    R@3    R@5    MRR    answer@3`,
  ];
  const f = (x: number) => x.toFixed(3);
  for (const { name } of MODES) {
    for (const kind of kinds) {
      const s = byMode[name].get(kind);
      if (!s) continue;
      const answer = s.withAnswer ? f(s.answered / s.withAnswer) : "  —  ";
      lines.push(
        `${name.padEnd(26)} ${kind.padEnd(10)} ${String(s.n).padStart(3)}  ${f(s.r1 / s.n)}  ${
          f(s.r3 / s.n)
        }  ${f(s.r5 / s.n)}  ${f(s.mrr / s.n)}  ${answer}`,
      );
    }
  }
  return lines;
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

if (import.meta.main) {
  const dirs = Deno.args.length ? Deno.args : Object.values(GOLDEN_SETS);
  // One model for every set: it loads once.
  const embedder = createUseLiteEmbedder();
  try {
    for (const dir of dirs) console.log(`${(await evaluateMemory(dir, { embedder })).report}\n`);
  } finally {
    embedder.close();
  }
}
