/** Fusing the keyword and vector rankings: pure arithmetic on scored ids. */

import { assertEquals } from "../helpers/assert.ts";
import { defaultFusion, fuse, type Fusion } from "../../src/memory/fusion.ts";

const USE_LITE = defaultFusion("use-lite@0.2.0");

Deno.test("fuse keeps a weak best candidate weak when scores are calibrated", async (t) => {
  // The best keyword hit matched a fifth of the question; a window is a full match in meaning.
  const keyword = [{ id: 1, score: 0.2 }];
  const vector = [{ id: 2, score: USE_LITE.fullSimilarity }];
  await t.step("calibrated: the strong vector match wins", () => {
    assertEquals(fuse(keyword, vector, USE_LITE).map(([id]) => id), [2, 1]);
  });
  await t.step("scaled by best: the weak keyword hit counted as a perfect one", () => {
    const best: Fusion = { ...USE_LITE, scale: "best" };
    assertEquals(fuse(keyword, vector, best).map(([id]) => id), [1, 2]);
  });
});

Deno.test("fuse scales similarities from the floor to a full match and adds the weighted rankings", () => {
  const halfway = (USE_LITE.minSimilarity + USE_LITE.fullSimilarity) / 2;
  const fused = fuse(
    [{ id: 1, score: 1 }, { id: 2, score: 0.5 }],
    [{ id: 2, score: halfway }, { id: 3, score: USE_LITE.minSimilarity }],
    USE_LITE,
  );
  // Chunk 3 is at the floor: no relevance, so it is not a candidate at all.
  assertEquals(fused.map(([id, score]) => [id, Number(score.toFixed(9))]), [
    [1, 1],
    [2, 0.5 + USE_LITE.vectorWeight * 0.5],
  ]);
});

Deno.test("defaultFusion calibrates only the embedder whose similarities were measured", () => {
  assertEquals([USE_LITE.scale, USE_LITE.vectorWeight], ["calibrated", 0.5]);
  assertEquals(defaultFusion("openai:text-embedding-3-small").scale, "best");
  assertEquals(defaultFusion(null).scale, "best");
});
