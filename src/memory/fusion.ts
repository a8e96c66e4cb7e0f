/**
 * Fusing the memory index's two rankings — keywords (BM25) and meaning
 * (vectors) — into one. Pure arithmetic on scored ids: knows nothing of SQL,
 * chunks or embedders beyond an embedder's id.
 */

/** Candidates each ranking contributes to the fusion. */
export const CANDIDATES = 50;
/** The k of reciprocal rank fusion: how much the top ranks dominate. */
const RRF_K = 60;

/** A chunk id with its score in one ranking, higher is better. */
export interface Scored {
  id: number;
  score: number;
}

/**
 * How the keyword and vector rankings are fused. `score` (the default) adds
 * each ranking's scores scaled to 0–1, weighted; `rrf` is reciprocal rank
 * fusion. On the membot golden set (bench/RESULTS.md) score fusion beat RRF,
 * and halving the weight of USE-lite's vectors — a model that reads only ~450
 * characters and ranks worse than BM25 alone — beat equal weights.
 */
export interface Fusion {
  method: "score" | "rrf";
  keywordWeight: number;
  vectorWeight: number;
  /**
   * Vector candidates below this cosine similarity are dropped, so a search
   * that matches nothing returns nothing rather than the least bad chunks.
   */
  minSimilarity: number;
  /**
   * What scores 1 in each ranking before weighting. `calibrated`: a keyword
   * score of 1 is every query term once in an average chunk (the keyword
   * search's own scale) and a similarity of `fullSimilarity` is a full match,
   * so a weak best candidate stays weak and the weights compare like with
   * like. `best`: each ranking's best candidate scores 1, however poor it is.
   */
  scale: "calibrated" | "best";
  /** The cosine similarity that counts as a full match when `scale` is `calibrated`. */
  fullSimilarity: number;
}

/**
 * The fusion for an embedder: a weaker model's evidence counts for less, and
 * scores are calibrated where the model's similarities were measured.
 *
 * @example
 * ```ts
 * defaultFusion("use-lite-512").vectorWeight; // 0.5
 * ```
 */
export function defaultFusion(embedderId: string | null): Fusion {
  // USE-lite's cosines are low even for true paraphrases of short facts (0.25-0.45
  // measured) while off-topic queries reach ~0.32: the floor favours recall, and
  // an off-topic query may get a weak hit rather than none. 0.6 is about as high as its
  // best window goes for a query it answers rightly (95% of them on hob's personal golden
  // set, 72% on membot's longer documents).
  const useLite = embedderId?.startsWith("use-lite") ?? false;
  return {
    method: "score",
    keywordWeight: 1,
    vectorWeight: useLite ? 0.5 : 1,
    minSimilarity: useLite ? 0.25 : 0,
    // Other embedders' similarities were not measured: their rankings keep their best as 1.
    scale: useLite ? "calibrated" : "best",
    fullSimilarity: useLite ? 0.6 : 1,
  };
}

/**
 * Fuses the keyword and vector rankings into one, best first, as
 * `[chunk id, score]` pairs. With score fusion each ranking's scores are
 * scaled from "no relevance" (BM25's zero, the embedder's similarity floor) to
 * a full match (see {@linkcode Fusion.scale}), which does not depend on how
 * many candidates were fetched, as min-max scaling would.
 *
 * @example
 * ```ts
 * fuse([{ id: 1, score: 4 }], [{ id: 2, score: 0.9 }], defaultFusion(null)); // [[1, 1], [2, 1]]
 * ```
 */
export function fuse(keyword: Scored[], vector: Scored[], fusion: Fusion): [number, number][] {
  const fused = new Map<number, number>();
  const calibrated = fusion.scale === "calibrated";
  const add = (ranking: Scored[], weight: number, zero: number, full: number) => {
    if (ranking.length === 0) return;
    if (fusion.method === "rrf") {
      ranking.forEach(({ id }, rank) =>
        fused.set(id, (fused.get(id) ?? 0) + weight / (RRF_K + rank + 1))
      );
      return;
    }
    const span = (calibrated ? full : ranking[0].score) - zero;
    if (span <= 0) return; // nothing in this ranking is relevant at all
    for (const { id, score } of ranking) {
      if (score <= zero) continue;
      fused.set(id, (fused.get(id) ?? 0) + weight * (score - zero) / span);
    }
  };
  add(keyword, fusion.keywordWeight, 0, 1);
  add(vector, fusion.vectorWeight, fusion.minSimilarity, fusion.fullSimilarity);
  return [...fused].sort((a, b) => b[1] - a[1]);
}
