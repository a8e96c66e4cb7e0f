/** Dates as memory files name them. */

/**
 * The date in the machine's time zone as YYYY-MM-DD, the name of a daily log.
 *
 * @example
 * ```ts
 * localDate(new Date(2026, 10, 22)); // "2026-11-22"
 * ```
 */
export function localDate(date: Date): string {
  const y = date.getFullYear();
  const m = String(date.getMonth() + 1).padStart(2, "0");
  const d = String(date.getDate()).padStart(2, "0");
  return `${y}-${m}-${d}`;
}
