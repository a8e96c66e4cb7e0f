/** Small statistics for benchmark figures. */

/** The p-th percentile (0–100) of `values`, by nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/**
 * Formats milliseconds with two decimals and, given the floor measured in the
 * same run (bench/startup.ts), its ratio to it.
 *
 * @example
 * ```ts
 * ms(3.2); // "3.20 ms"
 * ms(3.2, 80); // "3.20 ms (0.04× floor)"
 * ```
 */
export function ms(value: number, floor?: number): string {
  const text = `${value.toFixed(2)} ms`;
  return floor === undefined ? text : `${text} (${floorRatio(value, floor)} floor)`;
}

/**
 * `value` as a multiple of `floor`: two decimals below 10, one above.
 *
 * @example
 * ```ts
 * floorRatio(240, 80); // "3.00×"
 * ```
 */
export function floorRatio(value: number, floor: number): string {
  const ratio = value / floor;
  return `${ratio.toFixed(ratio < 10 ? 2 : 1)}×`;
}
