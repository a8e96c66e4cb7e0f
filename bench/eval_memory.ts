/**
 * `deno task eval:memory [--one-file] [DIR]`: indexes a golden corpus into a
 * fresh home and prints Recall@1/3/5, MRR@10 and answer@3 per query kind and
 * overall, for hybrid search and for keyword-only and vector-only, so the
 * fusion's gain is visible; then what the model reads: the share of answers
 * (or evidence turns) in search_memory's own output at limits 5 and 10, and
 * its characters. DIR holds `corpus/` and `queries.json`; without one, every
 * golden set runs: membot's (bench/data/membot/, vendored with its MIT
 * licence), which BM25 alone saturates; hob's own personal memory
 * (bench/data/personal/), mostly questions that share few words with their
 * answers; and hob's long chat logs (bench/data/conversations/), one file
 * per session and then one file per chat (`--one-file`).
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
import searchMemory from "../src/builtins/search_memory.ts";
import type { ToolContext } from "../src/sandbox/definition.ts";
import type { ServiceParams } from "../src/sandbox/services.ts";

/** The golden sets a run without arguments evaluates, by name. */
export const GOLDEN_SETS: Record<string, string> = {
  membot: new URL("./data/membot/", import.meta.url).pathname,
  personal: new URL("./data/personal/", import.meta.url).pathname,
  conversations: new URL("./data/conversations/", import.meta.url).pathname,
};

interface Query {
  query: string;
  expect: string;
  kind: string;
  answer?: string;
  /** The text that answers (a turn of a chat log): what the model must be shown. */
  evidence?: string;
  /** `dev` or `held-out`: which queries tuning may look at. */
  split?: string;
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

/** What search_memory showed at one limit: the share of answers visible and the characters. */
export interface ShownScores {
  limit: number;
  /** Queries with an evidence or an answer to look for. */
  n: number;
  visible: number;
  meanChars: number;
  maxChars: number;
}

/** What {@linkcode evaluateMemory} returns. */
export interface EvalResult {
  report: string;
  overall: Record<string, Scores>;
  stats: IndexStats;
  /** Per limit in SHOWN_LIMITS, over all queries with an evidence or an answer. */
  shown: ShownScores[];
}

/** Options for {@linkcode evaluateMemory}. */
export interface EvalOptions {
  /**
   * The embedder, owned by the caller (left open).
   * @default {a fresh USE-lite embedder, closed at the end}
   */
  embedder?: Embedder;
  /**
   * Each directory of the corpus joined into one file (`chat/` → `chat.md`,
   * its files in name order): a chat log kept in one file instead of one per session.
   * @default {false}
   */
  oneFilePerDirectory?: boolean;
}

/** What one query found in one mode. */
interface Outcome {
  /** 1-based rank of the expected document among distinct documents; 0 when absent. */
  rank: number;
  top: string | undefined;
  /** Whether the answer is in a top-3 chunk's text (undefined without an answer). */
  answered: boolean | undefined;
}

/** What search_memory showed the model for one query at one limit. */
interface Shown {
  /** Whether the evidence (or else the answer) is in the tool's output. */
  visible: boolean;
  chars: number;
}

/** The limits search_memory is measured at: what the model reads. */
const SHOWN_LIMITS = [5, 10];

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
): Promise<EvalResult> {
  let queries = JSON.parse(await Deno.readTextFile(join(dir, "queries.json"))) as Query[];
  const home = await Deno.makeTempDir({ prefix: "hob-eval-" });
  const memory = join(home, "memory");
  if (options.oneFilePerDirectory) {
    await joinDirectories(join(dir, "corpus"), memory);
    queries = queries.map((q) => ({ ...q, expect: q.expect.replace(/\/[^/]+$/, ".md") }));
  } else await copyTree(join(dir, "corpus"), memory);
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
    const shown = await shownToModel(index, queries);
    const header = [
      `memory eval (${dir}${
        options.oneFilePerDirectory ? ", one file per directory" : ""
      }): ${queries.length} queries over ${stats.files} documents (${stats.chunks} chunks, ${stats.vectors} vectors, embedder ${stats.embedder}); indexed in ${
        seconds.toFixed(1)
      } s`,
      `default fusion: ${JSON.stringify(defaultFusion(stats.embedder))}`,
    ];
    const kinds = ["overall", ...new Set(queries.map((q) => q.kind))];
    const lines = [...header, ...formatTable(byMode, kinds), ...formatShown(queries, shown)];
    if (misses.length) lines.push("hybrid misses:", ...misses);
    const overall = Object.fromEntries(
      MODES.map(({ name }) => [name, byMode[name].get("overall")!]),
    );
    return { report: lines.join("\n"), overall, stats, shown: summariseShown(queries, shown) };
  } finally {
    if (!options.embedder) embedder.close();
    db.close();
    await Deno.remove(home, { recursive: true });
  }
}

/** One query in one mode: where its document ranks, and whether a top-3 chunk holds the answer. */
async function runQuery(index: MemoryIndex, q: Query, mode: Mode): Promise<Outcome> {
  const options = { mode: mode.mode, fusion: mode.fusion };
  const ranked = await index.search(q.query, { ...options, limit: 40 });
  const docs = [...new Set(ranked.map((hit) => hit.path))];
  const top3 = (await index.search(q.query, { ...options, limit: 3 })).map((hit) => flat(hit.text));
  return {
    rank: docs.indexOf(q.expect) + 1,
    top: docs[0],
    answered: q.answer ? top3.some((text) => text.includes(flat(q.answer!))) : undefined,
  };
}

/**
 * What search_memory returns the model for each query (hob's default search)
 * at each of SHOWN_LIMITS: the tool's own output, through the same search.
 */
async function shownToModel(index: MemoryIndex, queries: Query[]): Promise<Shown[][]> {
  const context = {
    services: {
      // memory.search as the hob process answers it, minus the action's checks.
      call: (_method: "memory.search", params: ServiceParams<"memory.search">) =>
        index.search(params.q, { limit: params.limit }),
    },
  } as unknown as ToolContext;
  const shown: Shown[][] = SHOWN_LIMITS.map(() => []);
  for (const q of queries) {
    const wanted = q.evidence ?? q.answer;
    for (const [i, limit] of SHOWN_LIMITS.entries()) {
      const output = await searchMemory.run({ query: q.query, limit }, context);
      const visible = wanted !== undefined && flat(output).includes(flat(wanted));
      shown[i].push({ visible, chars: output.length });
    }
  }
  return shown;
}

/** The overall share visible and the size of the output, per limit. */
function summariseShown(queries: Query[], shown: Shown[][], only?: (q: Query) => boolean) {
  return SHOWN_LIMITS.map((limit, i): ShownScores => {
    const rows = shown[i].filter((_, q) =>
      (queries[q].evidence ?? queries[q].answer) !== undefined && (only?.(queries[q]) ?? true)
    );
    const chars = rows.map((row) => row.chars);
    return {
      limit,
      n: rows.length,
      visible: rows.filter((row) => row.visible).length / Math.max(1, rows.length),
      meanChars: chars.reduce((a, b) => a + b, 0) / Math.max(1, rows.length),
      maxChars: Math.max(0, ...chars),
    };
  });
}

/** The share of answers the model is shown, overall, per split and per kind. */
function formatShown(queries: Query[], shown: Shown[][]): string[] {
  const groups: [string, (q: Query) => boolean][] = [["overall", () => true]];
  for (const split of new Set(queries.flatMap((q) => q.split ? [q.split] : []))) {
    groups.push([split, (q) => q.split === split]);
  }
  for (const kind of new Set(queries.map((q) => q.kind))) {
    groups.push([kind, (q) => q.kind === kind]);
  }
  const lines = [
    `search_memory as the model reads it (hybrid): share of ${
      queries.some((q) => q.evidence) ? "evidence turns" : "answers"
    } in the output, and its characters (mean / max)`,
  ];
  for (const [name, only] of groups) {
    const scores = summariseShown(queries, shown, only);
    if (scores[0].n === 0) continue;
    lines.push(
      `  ${name.padEnd(22)} n ${String(scores[0].n).padStart(3)}  ${
        scores.map((s) =>
          `limit ${s.limit}: ${s.visible.toFixed(3)} in ${Math.round(s.meanChars)} / ${s.maxChars}`
        ).join("   ")
      }`,
    );
  }
  return lines;
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

/** Copies a directory tree (a golden set's corpus into a fresh home). */
export async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory) await copyTree(source, target);
    else if (entry.isFile) await Deno.copyFile(source, target);
  }
}

/** Each directory under `from` as one Markdown file in `to`: its files in name order. */
async function joinDirectories(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    if (entry.isFile) await Deno.copyFile(source, join(to, entry.name));
    if (!entry.isDirectory) continue;
    const names = [];
    for await (const file of Deno.readDir(source)) if (file.isFile) names.push(file.name);
    const texts = await Promise.all(names.sort().map((n) => Deno.readTextFile(join(source, n))));
    await Deno.writeTextFile(join(to, `${entry.name}.md`), texts.map((t) => t.trim()).join("\n\n"));
  }
}

if (import.meta.main) {
  const oneFilePerDirectory = Deno.args.includes("--one-file");
  const named = Deno.args.filter((arg) => arg !== "--one-file");
  const runs = named.length ? named.map((dir) => ({ dir, oneFilePerDirectory })) : [
    ...Object.values(GOLDEN_SETS).map((dir) => ({ dir, oneFilePerDirectory: false })),
    // The same chats kept as one file each, as many keep a journal: no per-file cap may hide them.
    { dir: GOLDEN_SETS.conversations, oneFilePerDirectory: true },
  ];
  // One model for every set: it loads once.
  const embedder = createUseLiteEmbedder();
  try {
    for (const run of runs) {
      console.log(`${(await evaluateMemory(run.dir, { ...run, embedder })).report}\n`);
    }
  } finally {
    embedder.close();
  }
}
