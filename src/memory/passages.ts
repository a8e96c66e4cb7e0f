/**
 * What a search shows of each hit: the lines of its chunk that answer the
 * query, not the chunk's first lines. Lines are scored by the query's terms
 * (stemmed as the index stems them, weighted by how rare they are), the best
 * ones are shown with their neighbours, neighbouring lines merge into one
 * span, short chunks are shown whole, and one character budget is spent
 * across all hits instead of a fixed window each. Labels of untrusted text
 * survive every cut. Pure text; the weights come from the keyword index.
 */

import { stemmer } from "stemmer";
import { excerpt } from "../core/untrusted.ts";

/** Characters of passage text a search shows per hit asked for, spent across all of them. */
export const PASSAGE_CHARS_PER_HIT = 600;
/** A hit is given at least this much of the budget (or its whole chunk when shorter). */
const MIN_HIT_CHARS = 160;
/**
 * Lines scoring at least this share of a chunk's best line are shown first; a
 * line matching only a weak word (a name on every line of a chat) is not.
 */
const ANCHOR_SHARE = 0.5;
/**
 * Lines shown after each best line, before the line above it: in a chat the
 * words of a question are often in one turn and its answer in the next two
 * ("When is the wedding?" — "Probably in June…"). Measured on hob's chat logs
 * (bench/data/conversations), 2 instead of 1 shows 0.936 of the answering
 * turns at limit 10 instead of 0.916, in the same characters; notes (the
 * personal set) are unchanged.
 */
const LINES_AFTER = 2;
/** What marks lines left out between two shown spans, or before and after them. */
const GAP = "…";

/** One hit to show: its chunk's text and the file it is from. */
export interface PassageSource {
  path: string;
  text: string;
}

/** How rare each query term is (keyed by its stem): what a line holding it scores. */
export type TermWeights = Map<string, number>;

interface Line {
  /** Index in the chunk's lines. */
  at: number;
  /** Character offsets of the line in the chunk's text. */
  start: number;
  end: number;
  text: string;
  score: number;
}

/**
 * The stems of a text's words, as SQLite's porter tokenizer makes them.
 *
 * @example
 * ```ts
 * stems("Going camping?"); // ["go", "camp"]
 * ```
 */
export function stems(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((word) => stemmer(word));
}

/**
 * Each hit's passage, in the hits' order, within `budget` characters in all:
 * hits are served best first, each given an even share of what is left, and
 * what a short chunk does not use goes to the hits after it. A line already
 * shown by an earlier hit (chunks of one file overlap) is not shown again.
 *
 * @example
 * ```ts
 * passages(hits, termWeights, 6_000); // ["Maya: thinking about going camping next month\n…", …]
 * ```
 */
export function passages(hits: PassageSource[], weights: TermWeights, budget: number): string[] {
  const shown = new Set<string>();
  let left = budget;
  return hits.map((hit, i) => {
    const share = Math.max(MIN_HIT_CHARS, Math.floor(left / (hits.length - i)));
    const lines = contentLines(hit.text, weights)
      .filter((line) => !shown.has(`${hit.path}\n${line.text}`));
    const chosen = chooseLines(lines, share);
    // By text, not number: a chunk's text leaves out the blank lines between its paragraphs.
    for (const line of chosen) shown.add(`${hit.path}\n${line.text}`);
    const text = lines.length === 0
      ? "(these lines are shown above)"
      : render(hit.text, lines, chosen, share, weights);
    left = Math.max(0, left - text.length);
    return text;
  });
}

/** The chunk's lines that say something (no blank lines, no heading lines), each scored. */
function contentLines(text: string, weights: TermWeights): Line[] {
  const lines: Line[] = [];
  let start = 0;
  text.split("\n").forEach((raw, at) => {
    const end = start + raw.length;
    const trimmed = raw.trim();
    if (trimmed && !/^#{1,6}\s/.test(trimmed)) {
      lines.push({ at, start, end, text: trimmed, score: lineScore(trimmed, weights) });
    }
    start = end + 1;
  });
  return lines;
}

/** The sum of the weights of the query's terms the line holds, each once. */
function lineScore(text: string, weights: TermWeights): number {
  if (weights.size === 0) return 0;
  let score = 0;
  for (const stem of new Set(stems(text))) score += weights.get(stem) ?? 0;
  return score;
}

/**
 * The lines to show within `room` characters: all when they fit; else the
 * best-scoring lines (those within ANCHOR_SHARE of the best), each followed
 * by the LINES_AFTER lines after it and the line before it, then whatever
 * extends the spans chosen. With no line matching, the chunk's first lines.
 */
function chooseLines(lines: Line[], room: number): Line[] {
  const cost = (line: Line) => line.text.length + 1;
  const total = lines.reduce((sum, line) => sum + cost(line), 0);
  if (total <= room) return lines;
  const chosen = new Set<number>();
  let used = 0;
  const take = (i: number): void => {
    if (i < 0 || i >= lines.length || chosen.has(i)) return;
    if (used + cost(lines[i]) > room) return;
    chosen.add(i);
    used += cost(lines[i]);
  };
  const best = Math.max(0, ...lines.map((line) => line.score));
  const ranked = lines.map((line, i) => ({ line, i }))
    .filter(({ line }) => line.score > 0 && line.score >= ANCHOR_SHARE * best)
    .sort((a, b) => b.line.score - a.line.score || a.i - b.i);
  for (const { i } of ranked) {
    take(i);
    if (!chosen.has(i)) continue;
    for (let after = 1; after <= LINES_AFTER; after++) take(i + after);
    take(i - 1);
  }
  // Room left: grow the spans chosen (or, with none, start at the top), line by line.
  if (chosen.size === 0) take(0);
  for (let grew = true; grew;) {
    grew = false;
    for (const i of [...chosen].sort((a, b) => a - b)) {
      const before = chosen.size;
      take(i + 1);
      take(i - 1);
      grew ||= chosen.size > before;
    }
  }
  return [...chosen].sort((a, b) => a - b).map((i) => lines[i]);
}

/**
 * The chosen lines as one text: neighbouring lines joined, gaps marked. A
 * line too long for the room alone (none was chosen) is cut around its best
 * words; labels stay whole in every piece.
 */
function render(
  text: string,
  lines: Line[],
  chosen: Line[],
  room: number,
  weights: TermWeights,
): string {
  if (chosen.length === 0) {
    const best = lines.reduce((a, b) => (b.score > a.score ? b : a));
    return cutLine(text, best, room, weights);
  }
  const spans: { first: Line; last: Line }[] = [];
  for (const line of chosen) {
    const span = spans.at(-1);
    const next = span && lines.indexOf(span.last) + 1 === lines.indexOf(line);
    if (span && next) span.last = line;
    else spans.push({ first: line, last: line });
  }
  const pieces = spans.map(({ first, last }) => excerpt(text, first.start, last.end));
  const head = spans[0].first === lines[0] ? "" : `${GAP}\n`;
  const tail = spans.at(-1)!.last === lines.at(-1) ? "" : `\n${GAP}`;
  return `${head}${pieces.join(`\n${GAP}\n`)}${tail}`;
}

/** `room` characters of one long line, from a little before its first matching word. */
function cutLine(text: string, line: Line, room: number, weights: TermWeights): string {
  const at = firstMatch(text.slice(line.start, line.end), weights);
  const start = line.start +
    Math.max(0, Math.min(line.end - line.start - room, at - Math.floor(room / 4)));
  const end = Math.min(line.end, start + room);
  return `${start > line.start ? GAP : ""}${excerpt(text, start, end)}${end < line.end ? GAP : ""}`;
}

/** The offset of the first word in `text` that is a query term; 0 when none is. */
function firstMatch(text: string, weights: TermWeights): number {
  for (const word of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (weights.has(stemmer(word[0].toLowerCase()))) return word.index;
  }
  return 0;
}
