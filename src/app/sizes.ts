/**
 * Sizes as every view shows them (`hob status`, `hob backup`, the page):
 * bytes, KiB or MiB with one decimal. Knows no view.
 */

/**
 * A size in the unit that reads best.
 *
 * @example
 * ```ts
 * showSize(37_455); // "36.6 KiB"
 * ```
 */
export function showSize(bytes: number): string {
  if (bytes < 1_024) return `${bytes} B`;
  if (bytes < 1_048_576) return `${(bytes / 1_024).toFixed(1)} KiB`;
  return `${(bytes / 1_048_576).toFixed(1)} MiB`;
}
