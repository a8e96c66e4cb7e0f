/** The `write_file` tool: create or replace a file inside the allowed directories, atomically. */

import { dirname } from "node:path";
import { z } from "zod";
import { defineTool } from "../definition.ts";
import { displayPath, writeAtomic } from "../fs_helpers.ts";

export default defineTool({
  name: "write_file",
  description:
    "Write text to a file, creating it and any missing parent directories, or replacing it. Set append to add to the end instead.",
  category: "files",
  side_effect: "local",
  permissions: { read: ["$ROOTS"], write: ["$ROOTS"] },
  parameters: z.object({
    path: z.string().min(1).describe("File to write"),
    content: z.string().describe("The text to write"),
    append: z.boolean().optional().describe("Add to the end of the file instead of replacing it"),
  }),
  async run({ path, content, append }, context) {
    const file = await context.resolvePath(path, { allowMissing: true });
    await Deno.mkdir(dirname(file), { recursive: true });
    // The parents now exist: check again, so a directory swapped for a symlink cannot redirect us.
    const checked = await context.resolvePath(file, { allowMissing: true });
    if (append) {
      await Deno.writeTextFile(checked, content, { append: true });
    } else {
      await writeAtomic(checked, content);
    }
    const bytes = new TextEncoder().encode(content).length;
    return `${append ? "Appended" : "Wrote"} ${bytes} bytes to ${
      displayPath(checked, context.workspace)
    }`;
  },
});
