/**
 * `deno task eval:memory [DIR]`: indexes a golden corpus into a fresh home and
 * prints Recall@1/3/5, MRR@10 and answer@3 per query kind and overall, for
 * hybrid search and for keyword-only and vector-only, so the fusion's gain is
 * visible. DIR holds `corpus/` and `queries.json` (default: the membot set in
 * bench/data/membot/, vendored with its MIT licence).
 */

import { join } from "node:path";
import { openDatabase } from "../src/store/database.ts";
import { defaultFusion, type Fusion, MemoryIndex } from "../src/memory/search_index.ts";
import { createUseLiteEmbedder } from "../src/memory/use_lite.ts";

interface Query {
  query: string;
  expect: string;
  kind: string;
  answer?: string;
}

interface Scores {
  n: number;
  r1: number;
  r3: number;
  r5: number;
  mrr: number;
  answered: number;
  withAnswer: number;
}

/** The rows: hob's default, the alternatives it was chosen over, and each ranking alone. */
const MODES: { name: string; mode: "hybrid" | "keyword" | "vector"; fusion?: Fusion }[] = [
  { name: "hybrid", mode: "hybrid" },
  {
    name: "hybrid, score fusion 1:1",
    mode: "hybrid",
    fusion: { method: "score", keywordWeight: 1, vectorWeight: 1, minSimilarity: 0.35 },
  },
  {
    name: "hybrid, RRF",
    mode: "hybrid",
    fusion: { method: "rrf", keywordWeight: 1, vectorWeight: 1, minSimilarity: 0 },
  },
  { name: "keyword only", mode: "keyword" },
  { name: "vector only", mode: "vector" },
];

/** Runs the evaluation and returns its printed report. */
export async function evaluateMemory(
  dir: string,
): Promise<{ report: string; overall: Record<string, Scores> }> {
  const queries = JSON.parse(await Deno.readTextFile(join(dir, "queries.json"))) as Query[];
  const home = await Deno.makeTempDir({ prefix: "hob-eval-" });
  const memory = join(home, "memory");
  await copyTree(join(dir, "corpus"), memory);
  const db = openDatabase(join(home, "hob.db"));
  const embedder = createUseLiteEmbedder();
  const index = new MemoryIndex(db, memory, embedder);
  const started = performance.now();
  await index.sync(undefined, true);
  const indexed = performance.now() - started;
  const stats = index.stats();

  const byMode: Record<string, Map<string, Scores>> = {};
  const misses: string[] = [];
  for (const { name, mode, fusion } of MODES) {
    const table = new Map<string, Scores>();
    for (const q of queries) {
      const ranked = await index.search(q.query, { limit: 40, perFile: 40, mode, fusion });
      const docs = [...new Set(ranked.map((hit) => hit.path))];
      const rank = docs.indexOf(q.expect) + 1;
      // Line breaks inside the answer's words do not count against it.
      const flat = (text: string) => text.toLowerCase().replace(/\s+/g, " ");
      const top3 = (await index.search(q.query, { limit: 3, mode, fusion })).map((hit) =>
        flat(hit.text)
      );
      for (const key of [q.kind, "overall"]) {
        const s = table.get(key) ??
          { n: 0, r1: 0, r3: 0, r5: 0, mrr: 0, answered: 0, withAnswer: 0 };
        s.n++;
        if (rank === 1) s.r1++;
        if (rank >= 1 && rank <= 3) s.r3++;
        if (rank >= 1 && rank <= 5) s.r5++;
        if (rank >= 1 && rank <= 10) s.mrr += 1 / rank;
        if (q.answer) {
          s.withAnswer++;
          if (top3.some((text) => text.includes(flat(q.answer!)))) s.answered++;
        }
        table.set(key, s);
      }
      if (name === "hybrid" && q.answer && !top3.some((text) => text.includes(flat(q.answer!)))) {
        misses.push(`  [${q.kind}] "${q.query}" → answer "${q.answer}" not in the top 3 chunks`);
      }
      if (name === "hybrid" && rank !== 1) {
        misses.push(
          `  [${q.kind}] "${q.query}" → expected ${q.expect} at rank ${rank || "—"}, got ${
            docs[0]
          }`,
        );
      }
    }
    byMode[name] = table;
  }
  embedder.close();
  db.close();
  await Deno.remove(home, { recursive: true });

  const lines = [
    `memory eval: ${queries.length} queries over ${stats.files} documents (${stats.chunks} chunks, ${stats.vectors} vectors, embedder ${stats.embedder}); indexed in ${
      (indexed / 1000).toFixed(1)
    } s`,
    `default fusion: ${JSON.stringify(defaultFusion(stats.embedder))}`,
    `${"mode".padEnd(26)} ${"kind".padEnd(10)}  n   R@1    R@3    R@5    MRR    answer@3`,
  ];
  const kinds = ["overall", ...new Set(queries.map((q) => q.kind))];
  for (const { name } of MODES) {
    for (const kind of kinds) {
      const s = byMode[name].get(kind);
      if (!s) continue;
      const f = (x: number) => x.toFixed(3);
      lines.push(
        `${name.padEnd(26)} ${kind.padEnd(10)} ${String(s.n).padStart(2)}  ${f(s.r1 / s.n)}  ${
          f(s.r3 / s.n)
        }  ${f(s.r5 / s.n)}  ${f(s.mrr / s.n)}  ${
          s.withAnswer ? f(s.answered / s.withAnswer) : "  —  "
        }`,
      );
    }
  }
  if (misses.length) lines.push("hybrid misses:", ...misses);
  const overall = Object.fromEntries(MODES.map(({ name }) => [name, byMode[name].get("overall")!]));
  return { report: lines.join("\n"), overall };
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
  const dir = Deno.args[0] ?? new URL("./data/membot/", import.meta.url).pathname;
  console.log((await evaluateMemory(dir)).report);
}
