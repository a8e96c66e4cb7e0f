/**
 * Lengths of time as hob.yaml writes them: a whole number and a unit, `45s`,
 * `30m`, `12h`, `1d`, `2w`. Knows nothing of what waits that long.
 */

/** Milliseconds in each unit a duration may name. */
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** The shape of a duration: digits, then one unit. */
export const DURATION_PATTERN = /^([1-9]\d{0,6})(s|m|h|d|w)$/;

/**
 * The milliseconds `text` stands for, or undefined when it is not a duration.
 *
 * @example
 * ```ts
 * durationMs("12h"); // 43_200_000
 * durationMs("12 hours"); // undefined
 * ```
 */
export function durationMs(text: string): number | undefined {
  const match = DURATION_PATTERN.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
