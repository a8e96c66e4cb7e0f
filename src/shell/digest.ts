/** The short digest that stands for one exact command line (or script) in a remembered approval. */

/**
 * The first 12 hex digits of the SHA-256 of a text.
 *
 * @example
 * ```ts
 * await digest("ls -la"); // "…12 hex digits…"
 * ```
 */
export async function digest(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("").slice(
    0,
    12,
  );
}
