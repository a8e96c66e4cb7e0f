/**
 * The keyword side of memory search: a query cut into terms, stop words and
 * (in large indexes) very common terms dropped, ranked by SQLite FTS5's BM25
 * term by term and scaled by the share of the query each chunk holds (a month
 * it names also matching that month's daily logs); and the weights of the
 * query's terms, for a hit's passage. Knows the memory_fts table and nothing
 * of vectors or fusion.
 */

import type { Sql } from "../store/statements.ts";
import { CANDIDATES, type Scored } from "./fusion.ts";
import { logDates, logYears } from "./log_dates.ts";
import { stems, type TermWeights } from "./passages.ts";

/** Indexes this large drop very common query terms (see selectiveTerms). */
const COMMON_TERMS_FROM = 2_000;
/** A term in more than this share of chunks is very common. */
const COMMON_TERM_SHARE = 0.2;
/** Terms a query matches at most: the first and the last half of them (a long query's two ends). */
const MAX_QUERY_TERMS = 40;
/**
 * Chunks read per query term, best first: as many as the ranking returns. A
 * chunk past them for one term has that many better holders of it, and is
 * scored without it (the golden sets rank the same with 50, 100 and 200;
 * fewer rows cost less for a long message's many terms).
 */
const TERM_CANDIDATES = CANDIDATES;

/**
 * The commonest English function words. The list stays short on purpose:
 * longer lists cost recall ("after", "until" can matter), and very common
 * terms of large indexes are dropped by document frequency instead.
 */
const STOPWORDS = new Set(
  `a an and are as at be but by did do does for from had has have how i if in into is it its me my no not of on
  or our so than that the their them then there these they this to was we were what when where which who why
  will with you your`.split(/\s+/),
);
/**
 * The auxiliaries a question is framed with ("can I take…", "should I
 * replace…", "am I…"): in a personal memory they are rare words, so BM25 would
 * weigh them high, yet they say nothing about what is asked. "May" stays: it is
 * also a month.
 */
const QUESTION_AUXILIARIES = new Set(
  "am can could might must shall should would".split(" "),
);
/**
 * The quantity a "how" question asks for ("how much", "how long"): the answer
 * is a number, not the word. "Long" elsewhere ("a long walk") stays.
 */
const HOW_QUANTITY = /\bhow\s+(much|many|long|often|far|old|soon)\b/gu;
/** A negated auxiliary ("don't", "can't"): a function word, whose stem ("don") would match nothing meant. */
const NEGATED_AUXILIARY = /\p{L}+n['\u2019]t\b/gu;

/**
 * How many chunks each FTS5 expression matches, as one search counted them: the
 * keyword ranking fills it and the passages' weights read it, so a search
 * counts each term once. Made afresh for each search (the chunks may change).
 */
export type TermCounts = Map<string, number>;

/** The chunks in the index (what `chunkCount` callers cache). */
export function countChunks(sql: Sql): number {
  return sql<{ n: number }>("SELECT COUNT(*) AS n FROM memory_chunks").one().n;
}

/**
 * The words of a query worth matching: lower-cased, deduplicated, without
 * stop words or single letters (a single digit stays), and without the frame
 * of a question (its auxiliaries, negated ones, the word after "how").
 *
 * @example
 * ```ts
 * queryTerms("Where is the 2 o'clock train?"); // ["2", "clock", "train"]
 * queryTerms("How much can I spend on trains?"); // ["spend", "trains"]
 * ```
 */
export function queryTerms(query: string): string[] {
  const text = query.toLowerCase().replace(HOW_QUANTITY, " ").replace(NEGATED_AUXILIARY, " ");
  return [...new Set(text.match(/[\p{L}\p{N}]+/gu) ?? [])]
    .filter((term) =>
      !STOPWORDS.has(term) && !QUESTION_AUXILIARIES.has(term) &&
      (term.length > 1 || /\d/.test(term))
    );
}

/**
 * The best chunks for `query` by BM25, scaled by the share of the query they
 * hold, best first, on a fixed scale: 1 is what a chunk of average length
 * scores with every query term in it once.
 * A chunk that matches one stray word of a question therefore scores low even
 * when nothing matches better, and fusion can weigh it against the vectors.
 * `chunkCount` gives the index's size (cached by the caller); `counts` keeps
 * each term's count for `termWeights`.
 *
 * @example
 * ```ts
 * keywordRanking(sql, "kyoto hotel", () => 120); // [{ id: 7, score: 1.3 }, { id: 2, score: 0.4 }]
 * ```
 */
export function keywordRanking(
  sql: Sql,
  query: string,
  chunkCount: () => number,
  counts: TermCounts = new Map(),
): Scored[] {
  const all = queryTerms(query);
  const half = MAX_QUERY_TERMS / 2;
  const terms = all.length <= MAX_QUERY_TERMS ? all : [...all.slice(0, half), ...all.slice(-half)];
  if (terms.length === 0) return [];
  const total = chunkCount();
  // A month the question names also matches that month's daily logs, by their date.
  const dates = logDates(query, () => logYears(sql));
  const matches = terms.map((term) => {
    const log = dates.get(term);
    return { term, match: log ? `"${term}" OR ${log}` : `"${term}"` };
  });
  const kept = selectiveTerms(termFrequencies(sql, matches, counts), total);
  // A term found nowhere counts too: a question half of whose words are absent is matched weakly.
  const full = kept.reduce((sum, { n }) => sum + inverseFrequency(n, total), 0);
  // Term by term, so each chunk's share of the query is known; bm25() of one
  // term is exactly that term's part of bm25() for all of them.
  const found = new Map<number, { score: number; held: number }>();
  const ranked = sql<{ id: number; score: number }>(
    "SELECT rowid AS id, bm25(memory_fts, 2.0, 1.0) AS score FROM memory_fts WHERE memory_fts MATCH ? ORDER BY score LIMIT ?",
  );
  for (const { match, n } of kept) {
    if (n === 0) continue;
    const weight = inverseFrequency(n, total);
    for (const row of ranked.all(match, TERM_CANDIDATES)) {
      const chunk = found.get(row.id) ?? { score: 0, held: 0 };
      chunk.score -= row.score; // FTS5's bm25 is negative, lower is better
      chunk.held += weight;
      found.set(row.id, chunk);
    }
  }
  // BM25 adds terms up, so a chunk that repeats one word of a question ("take" in "which
  // antibiotics am I unable to take") can outscore one holding two of its three. Scaled by
  // the square root of the share of the query it holds (by IDF; a soft form of Lucene's
  // coordination factor), a chunk matching more of the question comes first and a stray
  // word stays weak.
  return [...found]
    .map(([id, { score, held }]) => ({ id, score: (score / full) * Math.sqrt(held / full) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, CANDIDATES);
}

/**
 * How much each of the query's terms says, keyed by its stem: its IDF in the
 * index (what one occurrence adds to BM25), for choosing the lines of a hit
 * that answer. Terms the index holds nowhere weigh as the rarest. Terms in
 * `counts` (the search's keyword ranking counted them) are not counted again.
 *
 * @example
 * ```ts
 * termWeights(sql, "going camping", () => 120); // Map { "go" => 0.4, "camp" => 3.1 }
 * ```
 */
export function termWeights(
  sql: Sql,
  query: string,
  chunkCount: () => number,
  counts: TermCounts = new Map(),
): TermWeights {
  const terms = queryTerms(query).slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return new Map();
  const total = chunkCount();
  const weights: TermWeights = new Map();
  const plain = terms.map((term) => ({ term, match: `"${term}"` }));
  for (const { term, n } of termFrequencies(sql, plain, counts)) {
    weights.set(stems(term)[0] ?? term, inverseFrequency(n, total));
  }
  return weights;
}

/** A query term and the FTS5 expression it is matched with. */
interface Term {
  term: string;
  match: string;
}

/** How many chunks each term matches: from `counts`, or counted and kept there. */
function termFrequencies(sql: Sql, terms: Term[], counts: TermCounts): (Term & { n: number })[] {
  const count = sql<{ n: number }>("SELECT COUNT(*) AS n FROM memory_fts WHERE memory_fts MATCH ?");
  return terms.map((term) => {
    let n = counts.get(term.match);
    if (n === undefined) {
      n = count.one(term.match).n;
      counts.set(term.match, n);
    }
    return { ...term, n };
  });
}

/**
 * A term's IDF as FTS5's bm25() computes it (fts5_aux.c): one occurrence in a
 * chunk of average length adds exactly this to the score.
 */
function inverseFrequency(n: number, total: number): number {
  const idf = Math.log((total - n + 0.5) / (n + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/**
 * Drops terms found in more than a fifth of a large index, as a "common
 * terms" query does: they add little to BM25 (their IDF is near zero) and
 * scoring their long posting lists is most of a search's cost. The rarest
 * term always stays.
 */
function selectiveTerms<T extends { n: number }>(frequency: T[], total: number): T[] {
  if (frequency.length < 2 || total < COMMON_TERMS_FROM) return frequency;
  const kept = frequency.filter((f) => f.n <= total * COMMON_TERM_SHARE);
  if (kept.length > 0) return kept;
  return [frequency.reduce((a, b) => (b.n < a.n ? b : a))];
}
