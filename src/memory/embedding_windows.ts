/**
 * What a memory chunk is embedded as: its heading path, then its text in
 * windows no longer than the model reads, cut at line or sentence ends and
 * stripped of Markdown marks that carry no meaning. Pure text; knows nothing
 * of the database or the embedder beyond its window size.
 */

import type { Chunk } from "./chunker.ts";

/** Longest heading path prefixed to an embedding window. */
const MAX_PREFIX_CHARS = 120;

/**
 * The texts a chunk is embedded as: its heading path, then as much of its text
 * as the model reads, window after window, cut at line or sentence ends.
 *
 * @example
 * ```ts
 * embeddingWindows({ heading: "Trip > Day 1", text: "…", start_line: 1, end_line: 9 }, 450);
 * ```
 */
export function embeddingWindows(
  chunk: Pick<Chunk, "heading" | "text">,
  maxChars: number,
): string[] {
  const prefix = chunk.heading ? `${chunk.heading.slice(0, MAX_PREFIX_CHARS)}\n` : "";
  const room = Math.max(100, maxChars - prefix.length);
  // The heading lines are in the prefix already; list markers and timestamps carry no meaning.
  const lines = chunk.text.split("\n").filter((line) => !/^#{1,6}\s/.test(line)).map(plainLine);
  if (!lines.some((line) => line.text)) return [prefix.trim() || chunk.text.slice(0, maxChars)];
  const windows: string[] = [];
  let current = "";
  const closeWindow = () => {
    if (current) windows.push(prefix + current);
    current = "";
  };
  for (const line of lines) {
    if (!line.text) continue;
    // A list item is a statement of its own (a fact in MEMORY.md, a note in a log):
    // mixed with its neighbours its vector would describe none of them well.
    if (line.item) closeWindow();
    for (const piece of line.text.split(/(?<=[.!?])\s+/)) {
      for (let at = 0; at < piece.length; at += room) {
        const part = piece.slice(at, at + room);
        if (current && current.length + 1 + part.length > room) closeWindow();
        current = current ? `${current} ${part}` : part;
      }
    }
    if (line.item) closeWindow();
  }
  closeWindow();
  return windows;
}

/** A line without list markers, leading timestamps and inline Markdown marks. */
function plainLine(line: string): { text: string; item: boolean } {
  const item = /^\s*([-*+]|\d+[.)])\s+/.test(line);
  const text = line
    .replace(/^\s*([-*+]|\d+[.)])\s+/, "")
    .replace(/^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d\]?\s*/, "")
    .replace(/^\d\d:\d\d\s+/, "")
    .replace(/\*\*|__|`/g, "")
    .trim();
  return { text, item };
}
