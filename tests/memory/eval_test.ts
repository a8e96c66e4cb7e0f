/**
 * Search quality on the membot golden set (bench/data/membot, vendored): hob's
 * hybrid search with the built-in offline embedder must match or beat
 * membot's published figures (R@1 0.950, R@3 1.000, MRR 0.975, answer@3 1.000).
 */

import { assert } from "../helpers/assert.ts";
import { evaluateMemory } from "../../bench/eval_memory.ts";

Deno.test("hybrid memory search matches membot's published figures on its golden set", async () => {
  const dir = new URL("../../bench/data/membot/", import.meta.url).pathname;
  const { report, overall } = await evaluateMemory(dir);
  const hybrid = overall["hybrid"];
  const rate = (x: number) => x / hybrid.n;
  assert(rate(hybrid.r1) >= 0.95, report);
  assert(rate(hybrid.r3) >= 1.0, report);
  assert(rate(hybrid.mrr) >= 0.975, report);
  assert(hybrid.answered / hybrid.withAnswer >= 1.0, report);
});
