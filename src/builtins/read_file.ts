/** The `read_file` tool: a text file inside the allowed directories, up to 50,000 characters. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { displayPath, looksBinary, readAll } from "./file_helpers.ts";

/** Characters of a file the model gets; more is cut with a marker. */
const READ_CAP_CHARS = 50_000;

export default defineTool({
  name: "read_file",
  description:
    "Read a text file. Paths are relative to the workspace unless absolute inside an allowed directory. Long files are cut at 50,000 characters; use offset/limit (lines) to read further.",
  category: "files",
  side_effect: "none",
  untrusted_output: true,
  // A file's text: links in it are ones a tainted turn may follow (src/tools/call_reach.ts).
  output_links: true,
  permissions: { read: ["$ROOTS"] },
  max_output_chars: READ_CAP_CHARS,
  parameters: z.object({
    path: z.string().min(1).describe("File to read"),
    offset: z.number().int().min(1).optional().describe("First line to read (1-based)"),
    limit: z.number().int().min(1).max(100_000).optional().describe("How many lines to read"),
  }),
  async run({ path, offset, limit }, context) {
    // Read through the handle the containment check verified, never by name again.
    using opened = await context.openFile(path);
    if (opened.info.isDirectory) throw new Error(`'${path}' is a directory; use list_directory`);
    const bytes = await readAll(opened.file);
    if (looksBinary(bytes)) {
      throw new Error(
        `'${path}' is a binary file (${bytes.length} bytes); analyze_image reads images`,
      );
    }
    let text = new TextDecoder().decode(bytes);
    if (offset !== undefined || limit !== undefined) {
      const lines = text.split("\n");
      const start = (offset ?? 1) - 1;
      text = lines.slice(start, limit === undefined ? undefined : start + limit).join("\n");
    }
    if (text.length > READ_CAP_CHARS) {
      const shown = text.slice(0, READ_CAP_CHARS - 200);
      return `${shown}\n\n[… ${
        displayPath(opened.path, context.workspace)
      } continues: ${text.length} characters in all; read on with offset]`;
    }
    return text;
  },
});
