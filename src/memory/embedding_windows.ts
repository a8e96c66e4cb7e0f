/**
 * What a memory chunk is embedded as: its heading path, then its text in
 * windows no longer than the model reads, cut at line or sentence ends and
 * stripped of Markdown marks that carry no meaning; a list item or a table row
 * is a window of its own. Pure text; knows nothing of the database or the
 * embedder beyond its window size.
 */

import type { Chunk } from "./chunker.ts";

/** Longest heading path prefixed to an embedding window. */
const MAX_PREFIX_CHARS = 120;

/**
 * The version of what {@linkcode embeddingWindows} makes of a chunk. Bump it
 * whenever the windows change: an index records the version its vectors were
 * made with, and drops and re-embeds them all when it differs, since vectors
 * of two windowings would rank against each other unevenly.
 *
 * 1: heading path, then list items and packed lines (unrecorded: before issue 19).
 * 2: a table row is a window of its own, with its column names.
 */
export const WINDOWS_VERSION = 2;

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
  const lines = readableLines(chunk.text);
  if (!lines.some((line) => line.text)) return [prefix.trim() || chunk.text.slice(0, maxChars)];
  const windows: string[] = [];
  let current = "";
  const closeWindow = () => {
    if (current) windows.push(prefix + current);
    current = "";
  };
  for (const line of lines) {
    if (!line.text) continue;
    // A list item or a table row is a statement of its own (a fact in MEMORY.md, a note
    // in a log, a quote): mixed with its neighbours its vector would describe none well.
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

/**
 * The chunk's lines as read: headings left out (they are in the prefix), list
 * markers, timestamps and inline marks stripped, and a table's rows as items
 * that name their columns ("Firm: Harbourside; Quote: £8,750").
 */
function readableLines(text: string): { text: string; item: boolean }[] {
  const lines = text.split("\n");
  const out: { text: string; item: boolean }[] = [];
  let columns: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    if (/^#{1,6}\s/.test(lines[i])) continue;
    const cells = tableCells(lines[i]);
    if (!cells) {
      columns = null;
      out.push(plainLine(lines[i]));
    } else if (isTableRule(lines[i + 1] ?? "")) {
      columns = cells; // the header row: its names go with every row below it
      i++;
    } else if (!isTableRule(lines[i])) {
      const named = cells.map((cell, c) => cell && columns?.[c] ? `${columns[c]}: ${cell}` : cell);
      out.push({ text: named.filter(Boolean).join("; "), item: true });
    }
  }
  return out;
}

/** The cells of a Markdown table row, without their marks; null for any other line. */
function tableCells(line: string): string[] | null {
  if (!/^\s*\|.*\|\s*$/.test(line)) return null;
  return line.trim().slice(1, -1).split("|").map((cell) => cell.replace(/\*\*|__|`/g, "").trim());
}

/** The rule under a table's header row: `| --- | :-: |`. */
function isTableRule(line: string): boolean {
  return /^\s*\|(\s*:?-+:?\s*\|)+\s*$/.test(line);
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
