/**
 * Ordering text without the ICU collator: the first `localeCompare` of a
 * process, or of a tool's Worker, loads its locale data (~7 ms), and hob sorts
 * names and timestamps on the way to a first chat and in every
 * `list_directory` call.
 */

/**
 * Compares two strings ignoring case, then by code units, so equal-but-for-case
 * names still have one order. Unlike a locale's collation, punctuation sorts
 * by its code (`_` after the digits) and any letter outside ASCII after `z`.
 *
 * @example
 * ```ts
 * ["b.md", "A.md", "a.md"].sort(compareText); // ["A.md", "a.md", "b.md"]
 * ```
 */
export function compareText(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
