/**
 * Cutting Markdown into chunks for the index: by headings first, then by
 * paragraphs for long sections, with a little overlap, each chunk knowing its
 * heading path and its line range. Knows nothing of SQLite or embedders.
 */

import { openLabelAt, relabel } from "../core/untrusted.ts";

/** One piece of a Markdown file. */
export interface Chunk {
  /** The headings above the chunk, outermost first ("Trip > Day 3"). */
  heading: string;
  /** 1-based, inclusive. */
  start_line: number;
  end_line: number;
  text: string;
}

/** Options for {@linkcode chunkMarkdown}. */
export interface ChunkOptions {
  /**
   * Chunks grow up to about this many characters.
   * @default {1400}
   */
  target?: number;
  /**
   * Sections shorter than this join their neighbours under the same parent heading.
   * @default {400}
   */
  min?: number;
  /**
   * Characters repeated at the start of a chunk that continues a long section.
   * @default {150}
   */
  overlap?: number;
}

interface Section {
  path: string[];
  level: number;
  lines: { text: string; number: number }[];
}

/**
 * How chunks are cut, recorded by the index so an older index is cut again:
 * 1: a heading inside a label is no title (issue 30).
 */
export const CHUNKS_VERSION = 1;

/**
 * Chunks a Markdown document.
 *
 * @example
 * ```ts
 * chunkMarkdown("# Trip\n\n## Day 1\nKyoto temples.\n").map((c) => c.heading); // ["Trip > Day 1"]
 * ```
 */
export function chunkMarkdown(markdown: string, options: ChunkOptions = {}): Chunk[] {
  const { target = 1400, min = 400, overlap = 150 } = options;
  const sections = splitSections(withoutFrontMatter(markdown));
  const chunks: Chunk[] = [];
  let pending: { heading: string; parent: string; lines: Section["lines"] } | null = null;

  const closeChunk = () => {
    if (pending && pending.lines.some((l) => l.text.trim())) {
      chunks.push(...splitLong(pending.heading, pending.lines, target, overlap));
    }
    pending = null;
  };

  for (const section of sections) {
    const heading = section.path.join(" > ");
    const parent = section.path.slice(0, -1).join(" > ");
    const size = textOf(section.lines).length;
    // A small section travels with its next sibling or its first child, so a
    // chunk is not a lone title or a heading with one line under it.
    if (
      pending && (pending.parent === parent || pending.heading === parent) &&
      textOf(pending.lines).length < min && textOf(pending.lines).length + size <= target
    ) {
      pending.lines.push(...section.lines);
      continue;
    }
    closeChunk();
    pending = { heading, parent, lines: [...section.lines] };
  }
  closeChunk();
  return chunks.map((chunk) => keepLabels(chunk, markdown));
}

/**
 * The document with its front matter (a leading `---` … `---` block: a
 * source's origin and hash) blanked, lines kept so line numbers still hold:
 * it says where a text came from, not what it says, and would only add noise
 * to search.
 */
function withoutFrontMatter(markdown: string): string {
  const match = /^---\n[\s\S]*?\n---(?:\n|$)/.exec(markdown);
  if (!match) return markdown;
  return match[0].replace(/[^\n]/g, "") + markdown.slice(match[0].length);
}

/**
 * A chunk that starts or ends inside an untrusted label (text a tainted turn
 * wrote) reopens or closes it, so its text, its snippets and whatever quotes
 * them stay labelled — and taint the turn that reads them.
 */
function keepLabels(chunk: Chunk, markdown: string): Chunk {
  if (!/<\/?untrusted/i.test(markdown)) return chunk;
  const lines = markdown.split("\n");
  let start = 0;
  for (let i = 0; i < chunk.start_line - 1; i++) start += lines[i].length + 1;
  let end = start;
  for (let i = chunk.start_line - 1; i < chunk.end_line; i++) end += lines[i].length + 1;
  const text = relabel(chunk.text, openLabelAt(markdown, start), openLabelAt(markdown, end - 1));
  return { ...chunk, text };
}

/**
 * Splits at headings; text before the first heading is a section of its own.
 * A heading inside a label (a source's title, a note a tainted turn wrote)
 * still splits, but is no title: a chunk's heading path is shown outside any
 * label (search results, the memory context), so it holds trusted text only.
 */
function splitSections(markdown: string): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; title: string | null }[] = [];
  let current: Section = { path: [], level: 0, lines: [] };
  let fence: string | null = null;
  let labelled = false;
  markdown.split("\n").forEach((raw, index) => {
    const text = raw.replace(/\r$/, "");
    const number = index + 1;
    const inside = labelled;
    labelled = labelledAfter(text, labelled);
    const fenceMark = /^\s*(```|~~~)/.exec(text)?.[1];
    if (fenceMark) fence = fence === fenceMark ? null : fence ?? fenceMark;
    const heading = fence ? null : /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(text);
    if (heading) {
      if (current.lines.some((l) => l.text.trim())) sections.push(current);
      const level = heading[1].length;
      while (stack.length > 0 && stack[stack.length - 1].level >= level) stack.pop();
      stack.push({ level, title: inside || labelled ? null : heading[2].trim() });
      const path = stack.map((s) => s.title).filter((title): title is string => title !== null);
      current = { path, level, lines: [{ text, number }] };
    } else {
      current.lines.push({ text, number });
    }
  });
  if (current.lines.some((l) => l.text.trim())) sections.push(current);
  return sections;
}

/** Whether the text after `line` is inside a label, given whether its start was. */
function labelledAfter(line: string, inside: boolean): boolean {
  let open = inside;
  for (const tag of line.matchAll(/<(\/?)untrusted\b/gi)) open = tag[1] === "";
  return open;
}

/** Splits a long section at paragraph (then line) boundaries, repeating a little overlap. */
function splitLong(
  heading: string,
  lines: Section["lines"],
  target: number,
  overlap: number,
): Chunk[] {
  const trimmed = trimBlank(lines);
  if (textOf(trimmed).length <= target * 1.15) return [toChunk(heading, trimmed)];
  // Paragraphs: runs of lines between blank lines.
  const paragraphs: Section["lines"][] = [];
  let run: Section["lines"] = [];
  for (const line of trimmed) {
    if (!line.text.trim()) {
      if (run.length) paragraphs.push(run);
      run = [];
    } else {
      run.push(line);
    }
  }
  if (run.length) paragraphs.push(run);
  // A paragraph longer than the target is split by lines.
  const pieces = paragraphs.flatMap((p) =>
    textOf(p).length > target ? p.map((line) => [line]) : [p]
  );

  const chunks: Chunk[] = [];
  let current: Section["lines"] = [];
  for (const piece of pieces) {
    if (current.length && textOf([...current, ...piece]).length > target) {
      chunks.push(toChunk(heading, current));
      // Carry the tail of the previous chunk over, so a sentence at the cut is in both.
      current = tailLines(current, overlap);
    }
    current.push(...piece);
  }
  if (current.length) chunks.push(toChunk(heading, current));
  return chunks;
}

function tailLines(lines: Section["lines"], chars: number): Section["lines"] {
  const out: Section["lines"] = [];
  let size = 0;
  for (let i = lines.length - 1; i >= 0 && size < chars; i--) {
    if (lines[i].text.length > chars * 2) break;
    out.unshift(lines[i]);
    size += lines[i].text.length + 1;
  }
  return out;
}

function trimBlank(lines: Section["lines"]): Section["lines"] {
  let start = 0;
  let end = lines.length;
  while (start < end && !lines[start].text.trim()) start++;
  while (end > start && !lines[end - 1].text.trim()) end--;
  return lines.slice(start, end);
}

function toChunk(heading: string, lines: Section["lines"]): Chunk {
  const kept = trimBlank(lines);
  return {
    heading,
    start_line: kept[0].number,
    end_line: kept[kept.length - 1].number,
    text: textOf(kept),
  };
}

function textOf(lines: Section["lines"]): string {
  return lines.map((l) => l.text).join("\n");
}
