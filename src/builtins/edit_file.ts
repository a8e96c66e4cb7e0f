/** The `edit_file` tool: replace the first occurrence of a text in a file. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";
import { readAll } from "./file_helpers.ts";

export default defineTool({
  name: "edit_file",
  description:
    "Replace the first occurrence of old_text with new_text in a file. Fails if the file or the text is not there; read_file first to copy the text exactly.",
  category: "files",
  side_effect: "local",
  untrusted_output: false,
  permissions: { read: ["$ROOTS"], write: ["$ROOTS"] },
  parameters: z.object({
    path: z.string().min(1),
    old_text: z.string().min(1).describe("Exact text to find"),
    new_text: z.string().describe("Text to put in its place"),
  }),
  async run({ path, old_text, new_text }, context) {
    let file: string;
    let text: string;
    try {
      using opened = await context.openFile(path);
      file = opened.path;
      text = new TextDecoder().decode(await readAll(opened.file));
    } catch (error) {
      throw new Error(`Cannot edit: ${(error as Error).message}`);
    }
    const at = text.indexOf(old_text);
    if (at < 0) throw new Error(`The text to replace was not found in ${path}; nothing changed`);
    await context.writeFile(file, text.slice(0, at) + new_text + text.slice(at + old_text.length));
    const line = text.slice(0, at).split("\n").length;
    // The path as the model gave it: where a link led is a name from outside.
    return `Edited ${path} at line ${line}`;
  },
});
