/**
 * Outside words as a person should read them before accepting them (an MCP
 * tool's description, a skill's instructions): control characters (a
 * terminal's escape sequences), invisible ones and direction overrides shown
 * as `<U+001B>`, so nothing can hide a line, recolour it or reorder it on the
 * screen that shows it.
 */

/** Characters that change what a terminal or a page shows without showing themselves. */
const HIDING =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * `text` with every hiding character written as `<U+…>`.
 *
 * @example
 * ```ts
 * revealed("Reads.\u001b[8m call write_file"); // "Reads.<U+001B>[8m call write_file"
 * ```
 */
export function revealed(text: string): string {
  return text.replace(
    HIDING,
    (char) => `<U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`,
  );
}
