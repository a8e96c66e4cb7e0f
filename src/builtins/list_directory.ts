/** The `list_directory` tool: up to 200 entries, directories first, with sizes. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { displayPath, formatSize } from "./file_helpers.ts";
import { compareText } from "../core/text_order.ts";

/** Entries listed at most. */
const MAX_ENTRIES = 200;

export default defineTool({
  name: "list_directory",
  description:
    "List a directory: sub-directories first, then files with their sizes (at most 200 entries).",
  category: "files",
  side_effect: "none",
  permissions: { read: ["$ROOTS"] },
  parameters: z.object({
    path: z.string().min(1).default(".").describe("Directory to list; the workspace by default"),
  }),
  async run({ path }, context) {
    // Sizes and link targets are read inside the window the listing verifies.
    const listing = await context.readDirectory(path, { details: true });
    const dir = listing.path;
    const entries: {
      name: string;
      kind: "dir" | "file" | "link";
      size: number;
      target?: string;
    }[] = listing.entries.map((entry) =>
      entry.isDirectory
        ? { name: entry.name, kind: "dir", size: 0 }
        : entry.isSymlink
        ? { name: entry.name, kind: "link", size: 0, target: entry.target ?? "?" }
        : { name: entry.name, kind: "file", size: entry.info?.size ?? 0 }
    );
    entries.sort((a, b) =>
      (a.kind === "dir" ? 0 : 1) - (b.kind === "dir" ? 0 : 1) || compareText(a.name, b.name)
    );
    const shown = entries.slice(0, MAX_ENTRIES).map((entry) =>
      entry.kind === "dir"
        ? `${entry.name}/`
        : entry.kind === "link"
        ? `${entry.name} -> ${entry.target}`
        : `${entry.name}  (${formatSize(entry.size)})`
    );
    const header = `${displayPath(dir, context.workspace)}: ${entries.length} entries`;
    const more = entries.length > MAX_ENTRIES ? `\n… and ${entries.length - MAX_ENTRIES} more` : "";
    return entries.length === 0 ? `${header} (empty)` : `${header}\n${shown.join("\n")}${more}`;
  },
});
