/** The `search_files` tool: files whose paths match a glob, at most 100. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { displayPath, walk } from "./file_helpers.ts";

/** Matches listed at most. */
const MAX_MATCHES = 100;

export default defineTool({
  name: "search_files",
  description:
    "Find files by name with a glob such as '**/*.md' or 'notes/*.txt', searched from a directory (the workspace by default). At most 100 results.",
  category: "files",
  side_effect: "none",
  permissions: { read: ["$ROOTS"] },
  parameters: z.object({
    pattern: z.string().min(1).max(500).describe("Glob, matched against paths relative to `path`"),
    path: z.string().min(1).default(".").describe("Directory to search from"),
  }),
  async run({ pattern, path }, context) {
    const dir = await context.resolvePath(path);
    // Every directory is listed between two identity checks of it.
    // A walk meets only real paths (it follows no links), so no resolving per directory.
    const read = async (at: string) => (await context.readDirectory(at, { real: true })).entries;
    const { default: picomatch } = await import("picomatch");
    // A bare name pattern ('*.md') matches at any depth, as people expect.
    const matcher = picomatch(pattern, { dot: true, basename: !pattern.includes("/") });
    const found: string[] = [];
    let more = false;
    for await (const entry of walk(dir, read)) {
      if (entry.isDirectory || !matcher(entry.relative)) continue;
      if (found.length === MAX_MATCHES) {
        more = true;
        break;
      }
      found.push(displayPath(entry.path, context.workspace));
    }
    if (found.length === 0) {
      return `No files match '${pattern}' in ${displayPath(dir, context.workspace)}`;
    }
    return `${found.sort().join("\n")}${
      more ? `\n… more than ${MAX_MATCHES} matches; narrow the pattern` : ""
    }`;
  },
});
