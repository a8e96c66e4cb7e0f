/** The `search_in_files` tool: lines containing a text, case-insensitively, at most 50. */

import { z } from "zod";
import { defineTool, type ToolContext } from "../sandbox/definition.ts";
import { displayPath, looksBinary, readAll, walk } from "./file_helpers.ts";
import { PathChangedError } from "../sandbox/paths.ts";

/** Matching lines listed at most. */
const MAX_MATCHES = 50;
/** Files larger than this are skipped. */
const MAX_FILE_BYTES = 1_048_576;
/** Longest line shown; longer ones are cut around the match. */
const MAX_LINE_CHARS = 300;

export default defineTool({
  name: "search_in_files",
  description:
    "Search text files for a string (case-insensitive) and list matches as 'file:line: text', at most 50. Optionally only files with given extensions. Files over 1 MB are skipped.",
  category: "files",
  side_effect: "none",
  untrusted_output: true,
  // A file's text: links in it are ones a tainted turn may follow (src/tools/call_reach.ts).
  output_links: true,
  permissions: { read: ["$ROOTS"] },
  parameters: z.object({
    query: z.string().min(1).max(1_000).describe("Text to find"),
    path: z.string().min(1).default(".").describe("Directory to search"),
    extensions: z.array(z.string().min(1).max(20)).max(50).optional().describe(
      "Only files ending in these, e.g. ['md', 'txt']",
    ),
  }),
  async run({ query, path, extensions }, context) {
    const dir = await context.resolvePath(path);
    // Every directory is listed between two identity checks of it.
    // A walk meets only real paths (it follows no links), so no resolving per directory.
    const read = async (at: string) => (await context.readDirectory(at, { real: true })).entries;
    const needle = query.toLowerCase();
    const endings = extensions?.map((e) => `.${e.replace(/^\./, "").toLowerCase()}`);
    const matches: string[] = [];
    let skipped = 0;
    search: for await (const entry of walk(dir, read)) {
      if (entry.isDirectory) continue;
      if (endings && !endings.some((ending) => entry.relative.toLowerCase().endsWith(ending))) {
        continue;
      }
      const bytes = await readSmallFile(context, entry.path);
      if (bytes === "too big") {
        skipped++;
        continue;
      }
      if (!bytes || looksBinary(bytes)) continue;
      const lines = new TextDecoder().decode(bytes).split("\n");
      for (let i = 0; i < lines.length; i++) {
        const at = lines[i].toLowerCase().indexOf(needle);
        if (at < 0) continue;
        if (matches.length === MAX_MATCHES) break search;
        matches.push(
          `${displayPath(entry.path, context.workspace)}:${i + 1}: ${excerpt(lines[i], at)}`,
        );
      }
    }
    const note = skipped > 0 ? `\n(${skipped} file(s) over 1 MB skipped)` : "";
    if (matches.length === 0) return `No matches for '${query}'${note}`;
    const more = matches.length === MAX_MATCHES ? `\n… stopped at ${MAX_MATCHES} matches` : "";
    return `${matches.join("\n")}${more}${note}`;
  },
});

/**
 * A file's bytes through a verified handle; null when it cannot be read (it
 * went away, or became a link out), "too big" past the cap. A file swapped
 * while being opened ends the search.
 */
async function readSmallFile(
  context: ToolContext,
  path: string,
): Promise<Uint8Array | "too big" | null> {
  let opened;
  try {
    opened = await context.openFile(path, { real: true });
  } catch (error) {
    if (error instanceof PathChangedError) throw error;
    return null;
  }
  try {
    if (!opened.info.isFile) return null;
    if (opened.info.size > MAX_FILE_BYTES) return "too big";
    return await readAll(opened.file, MAX_FILE_BYTES);
  } catch {
    return null;
  } finally {
    opened.close();
  }
}

function excerpt(line: string, at: number): string {
  const trimmed = line.trim();
  if (trimmed.length <= MAX_LINE_CHARS) return trimmed;
  const start = Math.max(0, at - MAX_LINE_CHARS / 2);
  return `…${line.slice(start, start + MAX_LINE_CHARS)}…`;
}
