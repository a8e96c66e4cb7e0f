/** Timestamps for rows: ISO 8601 UTC, strictly increasing within this process. */

let last = 0;

/**
 * The time as ISO 8601 UTC, strictly increasing within this process, so that
 * ordering by a timestamp follows the order things happened even within one
 * millisecond.
 *
 * @example
 * ```ts
 * timestamp() < timestamp(); // true
 * ```
 */
export function timestamp(): string {
  last = Math.max(Date.now(), last + 1);
  return new Date(last).toISOString();
}
