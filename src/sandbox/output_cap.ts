/** Capping tool output, so one call cannot flood the context window (or the pipe to hob). */

/**
 * Keeps the head and tail of an over-long text with a marker between them.
 *
 * @example
 * ```ts
 * capOutput("x".repeat(20_000), 10_000).length; // ≤ 10_000
 * ```
 */
export function capOutput(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const omitted = text.length - cap;
  const marker = `\n\n[… ${omitted} characters omitted …]\n\n`;
  const keep = Math.max(0, cap - marker.length);
  const head = Math.ceil(keep * 0.6);
  return text.slice(0, head) + marker + text.slice(text.length - (keep - head));
}
