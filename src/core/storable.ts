/**
 * What text hob can store whole. SQLite reads a NUL back as the end of the
 * text and a Markdown file has no place for one; a lone UTF-16 surrogate (half
 * a character) becomes U+FFFD when written. A way in that can refuse refuses
 * such text, naming the field ({@linkcode unstorableText}); one that cannot (a
 * channel's message, a model's or a program's output) marks the character
 * with U+FFFD and keeps the rest ({@linkcode storableText}).
 */

/** A string in some input that hob cannot store whole, and where it is. */
export interface TextFault {
  /** The path to it: `message`, `messages.0.content`, or a key's own path. */
  field: string;
  problem: string;
}

/** How deep {@linkcode unstorableText} looks; bodies are shallower (the HTTP layer caps nesting). */
const MAX_DEPTH = 64;

/**
 * The first string in `input` (a value, or any key or value inside it) that
 * cannot be stored whole: a NUL, which SQLite reads back as the end of the
 * text and which has no place in a Markdown file, or a lone UTF-16 surrogate,
 * half a character, which becomes U+FFFD when written. Other characters,
 * control characters included, are kept as they came. `undefined` when all of
 * it can be stored.
 *
 * @example
 * ```ts
 * unstorableText({ message: "before\u0000after" }); // { field: "message", problem: "holds a NUL character …" }
 * ```
 */
export function unstorableText(input: unknown, path: string[] = []): TextFault | undefined {
  if (typeof input === "string") {
    const problem = textProblem(input);
    return problem ? { field: path.join(".") || "input", problem } : undefined;
  }
  // Only JSON's shapes: bytes (an upload, audio) and class instances are not text.
  if (!plain(input) || path.length >= MAX_DEPTH) return undefined;
  for (const [key, value] of Object.entries(input)) {
    const inner = [...path, key];
    const keyProblem = Array.isArray(input) ? undefined : textProblem(key);
    if (keyProblem) return { field: inner.join("."), problem: `its name ${keyProblem}` };
    const fault = unstorableText(value, inner);
    if (fault) return fault;
  }
  return undefined;
}

function plain(input: unknown): input is object {
  if (typeof input !== "object" || input === null) return false;
  const prototype = Object.getPrototypeOf(input);
  return Array.isArray(input) || prototype === Object.prototype || prototype === null;
}

function textProblem(text: string): string | undefined {
  if (!text.includes("\0") && text.isWellFormed()) return undefined;
  const chars = [...text];
  const at = chars.findIndex((char) => char === "\0" || !char.isWellFormed());
  if (chars[at] === "\0") {
    return `holds a NUL character (U+0000) at character ${at}, which hob cannot store — remove it`;
  }
  const unit = chars[at].charCodeAt(0).toString(16).toUpperCase();
  return `holds a lone surrogate (U+${unit}) at character ${at}, half of a character — send the whole character`;
}

/**
 * `text` with what {@linkcode unstorableText} refuses shown as U+FFFD, for a
 * way in that cannot refuse (a channel's message): the rest arrives whole, and
 * the mark shows where a character could not be kept.
 *
 * @example
 * ```ts
 * storableText("before\u0000after"); // "before\uFFFDafter"
 * ```
 */
export function storableText(text: string): string {
  return text.replaceAll("\0", "\uFFFD").toWellFormed();
}
