/** The `write_file` tool: create or replace a file inside the allowed directories, atomically. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { textToDocx } from "./docx.ts";

export default defineTool({
  name: "write_file",
  description:
    "Write text to a file, creating it and any missing parent directories, or replacing it. Set append to add to the end instead, or format 'docx' to write the text as a Word document (one paragraph per line).",
  category: "files",
  side_effect: "local",
  untrusted_output: false,
  permissions: { read: ["$ROOTS"], write: ["$ROOTS"] },
  parameters: z.object({
    path: z.string().min(1).describe("File to write"),
    content: z.string().describe("The text to write"),
    append: z.boolean().optional().describe("Add to the end of the file instead of replacing it"),
    format: z.enum(["text", "docx"]).optional().describe(
      "'docx' writes the text as a Word document, one paragraph per line; 'text' (the default) as is",
    ),
  }),
  async run({ path, content, append, format }, context) {
    if (format === "docx" && append) {
      throw new Error("Cannot append to a Word document; write it whole without append.");
    }
    const data = format === "docx" ? await textToDocx(content) : new TextEncoder().encode(content);
    // Checked, written through verified handles, and checked again where it landed.
    await context.writeFile(path, data, { append });
    const bytes = data.length;
    // The path as the model gave it: where a link led is a name from outside.
    return `${append ? "Appended" : "Wrote"} ${bytes} bytes to ${path}`;
  },
});
