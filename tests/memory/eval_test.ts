/**
 * Search quality on the golden sets, with the built-in offline embedder. On
 * membot's (bench/data/membot, vendored) hybrid search must match or beat
 * membot's published figures (R@1 0.950, R@3 1.000, MRR 0.975, answer@3
 * 1.000). On hob's own harder set (bench/data/personal), which BM25 alone does
 * not saturate, hybrid must keep what issue 19 measured (R@1 0.617, R@3 0.824,
 * MRR 0.732, answer@3 0.814, up from 0.601, 0.782, 0.707, 0.750) and beat each
 * ranking alone.
 */

import { assert } from "../helpers/assert.ts";
import { evaluateMemory, GOLDEN_SETS } from "../../bench/eval_memory.ts";

Deno.test("hybrid memory search matches membot's published figures on its golden set", async () => {
  const { report, overall } = await evaluateMemory(GOLDEN_SETS.membot);
  const hybrid = overall["hybrid"];
  const rate = (x: number) => x / hybrid.n;
  assert(rate(hybrid.r1) >= 0.95, report);
  assert(rate(hybrid.r3) >= 1.0, report);
  assert(rate(hybrid.mrr) >= 0.975, report);
  assert(hybrid.answered / hybrid.withAnswer >= 1.0, report);
});

Deno.test("hybrid memory search beats keywords and vectors alone on the personal golden set", async () => {
  const { report, overall } = await evaluateMemory(GOLDEN_SETS.personal);
  const mrr = (mode: string) => overall[mode].mrr / overall[mode].n;
  const hybrid = overall["hybrid"];
  assert(hybrid.r1 / hybrid.n >= 0.61, report);
  assert(hybrid.r3 / hybrid.n >= 0.8, report);
  assert(mrr("hybrid") >= 0.72, report);
  assert(hybrid.answered / hybrid.withAnswer >= 0.8, report);
  assert(mrr("hybrid") > mrr("keyword only") && mrr("hybrid") > mrr("vector only"), report);
});
