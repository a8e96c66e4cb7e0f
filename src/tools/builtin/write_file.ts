/** The `write_file` tool: create or replace a file inside the allowed directories, atomically. */

import { z } from "zod";
import { defineTool } from "../definition.ts";

export default defineTool({
  name: "write_file",
  description:
    "Write text to a file, creating it and any missing parent directories, or replacing it. Set append to add to the end instead.",
  category: "files",
  side_effect: "local",
  untrusted_output: false,
  permissions: { read: ["$ROOTS"], write: ["$ROOTS"] },
  parameters: z.object({
    path: z.string().min(1).describe("File to write"),
    content: z.string().describe("The text to write"),
    append: z.boolean().optional().describe("Add to the end of the file instead of replacing it"),
  }),
  async run({ path, content, append }, context) {
    // Checked, written through verified handles, and checked again where it landed.
    await context.writeFile(path, content, { append });
    const bytes = new TextEncoder().encode(content).length;
    // The path as the model gave it: where a link led is a name from outside.
    return `${append ? "Appended" : "Wrote"} ${bytes} bytes to ${path}`;
  },
});
