/**
 * A search query of bounded size, taken from a text of any size: the text
 * itself when it is short, else its head and its tail cut at word
 * boundaries. A pasted document's opening says what it is and its last lines
 * hold the question asked about it, so both ends are kept; the middle is
 * left out. The per-turn memory lookup and the embedders read these, so
 * their cost stays flat however long a message is.
 */

/** Characters of a message the per-turn memory lookup reads. */
export const LOOKUP_QUERY_CHARS = 2_000;

/** Marks where the middle was left out. */
const GAP = " … ";

/**
 * At most `chars` characters of `text` (plus the gap's few): all of it when
 * it fits, else its first and last halves, each cut at a word boundary.
 *
 * @example
 * ```ts
 * boundedQuery("short question", 100); // "short question"
 * boundedQuery("a ".repeat(5_000) + "why?", 40); // "a a a a a a a a a a … a a a a a a a why?"
 * ```
 */
export function boundedQuery(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const half = Math.max(1, Math.floor(chars / 2));
  const head = text.slice(0, half);
  const tail = text.slice(text.length - half);
  // Cut at whitespace so no half-word becomes a search term; keep a word longer than the half.
  const headCut = head.search(/\s\S*$/);
  const tailCut = tail.search(/\s/);
  return `${headCut > 0 ? head.slice(0, headCut) : head}${GAP}${
    tailCut >= 0 && tailCut < tail.length - 1 ? tail.slice(tailCut + 1) : tail
  }`.trim();
}
