/**
 * The memory section of a turn's system prompt: the newest part of MEMORY.md,
 * of today's and yesterday's logs, and the best search hits for the user's
 * message, each with its path and lines so the model can cite it and read on
 * with memory_get. hob puts this into every turn by itself, so it holds
 * trusted text only: a labelled entry (a note a tainted turn wrote, a tainted
 * heartbeat report) is left out with hob's words saying which lines it was,
 * and hits from sources added from outside are only counted. The model reads
 * them when it asks (memory_get, search_memory), and that turn is then
 * tainted — an ordinary turn never is. Knows the files and the index, not
 * the turn.
 */

import { type TrustedLine, trustedLines, untrustedSource } from "../core/untrusted.ts";
import { boundedQuery, LOOKUP_QUERY_CHARS } from "./bounded_query.ts";
import type { MemoryHit } from "./search_index.ts";

/** What the memory section is made from. */
export interface ContextSources {
  /** Reads a memory file (relative path); empty when it does not exist. */
  read(path: string): Promise<string>;
  /** Today's and yesterday's logs, relative to the memory directory. */
  today: string;
  yesterday: string;
  /** Searches the index without waiting for the embedder. */
  search(query: string, limit: number): Promise<MemoryHit[]>;
  /** The hits' passages for the query chosen again, within `budget` characters in all. */
  passages(hits: MemoryHit[], query: string, budget: number): MemoryHit[];
}

/** The section's size and how many search hits it shows. */
export interface ContextBudget {
  chars: number;
  hits: number;
}

/** Shares of the budget each file's tail may take, in order. */
const FILE_SHARES: [title: string, file: "MEMORY.md" | "today" | "yesterday", share: number][] = [
  ["Long-term memory", "MEMORY.md", 0.4],
  ["Today's log", "today", 0.2],
  ["Yesterday's log", "yesterday", 0.1],
];
/** A file's tail is left out when less room than this is left: a few words help nobody. */
const MIN_SECTION_CHARS = 200;
/** The title of the search hits' part. */
const HITS_TITLE = "## Notes that may be relevant (search for the user's message)\n\n";
/** Characters of a hit's line beside its passage: its path, lines and heading. */
const HIT_LINE_CHARS = 80;
/** Extra hits asked of the index, for those the files' tails already show and those left out. */
const EXTRA_HITS = 3;

/** What hob writes where it left out a labelled span of a memory file. */
export function leftOut(first: number, last: number): string {
  const lines = first === last ? `line ${first}` : `lines ${first}-${last}`;
  return `(text from outside, ${lines}: not shown here; memory_get reads it)`;
}

/**
 * The memory section for `query`, within `budget`: trusted text only.
 *
 * @example
 * ```ts
 * const section = await memoryContext(sources, "what does Ada drink?", { chars: 6_000, hits: 4 });
 * ```
 */
export async function memoryContext(
  sources: ContextSources,
  query: string,
  budget: ContextBudget,
): Promise<string> {
  if (budget.chars === 0) return "";
  const parts: string[] = [];
  let used = 0;
  const shown: string[] = [];
  for (const [title, file, share] of FILE_SHARES) {
    const path = file === "MEMORY.md" ? file : sources[file];
    const room = Math.min(Math.floor(budget.chars * share), budget.chars - used);
    const lines = trustedLines(await sources.read(path), leftOut).map(inert);
    const section = room < MIN_SECTION_CHARS ? null : tailSection(title, path, lines, room);
    if (!section) continue;
    parts.push(section.text);
    shown.push(section.excerpt);
    used += section.text.length;
  }
  if (budget.hits > 0 && query.trim()) {
    const room = budget.chars - used - HITS_TITLE.length;
    const hits = await hitLines(sources, query, budget.hits, shown.join("\n"), room);
    const lines: string[] = [];
    for (const line of hits) {
      if (used + line.length > budget.chars) break;
      lines.push(line);
      used += line.length;
    }
    if (lines.length > 0) {
      parts.push(`${HITS_TITLE}${lines.join("\n")}`);
    }
  }
  if (parts.length === 0) return "";
  return `${
    parts.join("\n\n")
  }\n\nThese come from the user's memory files; cite the path, and use memory_get to read more.`;
}

/**
 * A trusted line with whatever still reads as a tag (a note that mentions
 * `<untrusted>`) escaped: it opens no label, so it taints nothing.
 */
function inert(line: TrustedLine): TrustedLine {
  return { ...line, text: line.text.replace(/<(\/?)untrusted/gi, "&lt;$1untrusted") };
}

/** A file's newest lines under a heading with its path and line range, or null when empty. */
function tailSection(
  title: string,
  path: string,
  lines: TrustedLine[],
  room: number,
): { text: string; excerpt: string } | null {
  while (lines.length > 0 && !lines[lines.length - 1].text.trim()) lines.pop();
  if (lines.length === 0) return null;
  let size = 0;
  let first = lines.length;
  while (first > 0 && size + lines[first - 1].text.length + 1 <= room) {
    size += lines[first - 1].text.length + 1;
    first--;
  }
  if (first === lines.length) first = lines.length - 1;
  const kept = lines.slice(first);
  const excerpt = kept.map((line) => line.text).join("\n");
  const range = `lines ${kept[0].first}-${kept[kept.length - 1].last}`;
  const text = `## ${title} (${path}, ${range})\n\n${first > 0 ? "…\n" : ""}${excerpt}`;
  return { text, excerpt };
}

/**
 * The best hits for the message, each with its path and its passage, without
 * those the tails show and those that hold text from outside; a last line
 * counts the latter. The passages are chosen within `room` characters.
 */
async function hitLines(
  sources: ContextSources,
  query: string,
  limit: number,
  shown: string,
  room: number,
): Promise<string[]> {
  // A bounded query: a pasted book costs the lookup what a question does.
  const bounded = boundedQuery(query, LOOKUP_QUERY_CHARS);
  const found = await sources.search(bounded, 2 * limit + EXTRA_HITS);
  const fresh = found.filter((hit) => !shown.includes(hit.text.trim().slice(0, 120)));
  const trusted = fresh.filter((hit) => untrustedSource(hit.snippet) === null);
  const outside = fresh.length - trusted.length;
  const kept = trusted.slice(0, limit);
  const passageRoom = Math.max(0, room - kept.length * HIT_LINE_CHARS);
  const lines = sources.passages(kept, bounded, passageRoom).map((hit) => {
    // A heading is shown only from a chunk with no outside text: it may be a labelled entry's.
    const heading = hit.heading && untrustedSource(hit.text) === null ? ` (${hit.heading})` : "";
    return `- ${hit.path}:${hit.start_line}-${hit.end_line}${heading}:\n${
      hit.snippet.replace(/^/gm, "  ")
    }`;
  });
  if (outside > 0) {
    lines.push(
      `- (${outside} more matching ${
        outside === 1 ? "note holds" : "notes hold"
      } text from outside, such as sources added to memory: search_memory shows them)`,
    );
  }
  return lines;
}
