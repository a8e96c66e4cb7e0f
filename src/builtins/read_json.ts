/** The `read_json` tool: a JSON file, pretty-printed, up to 15,000 characters. */

import { z } from "zod";
import { defineTool, type ToolContext } from "../sandbox/definition.ts";
import { readAll } from "./file_helpers.ts";

export default defineTool({
  name: "read_json",
  description:
    "Read a JSON file and show it pretty-printed (cut at 15,000 characters; query_json picks parts).",
  category: "data",
  side_effect: "none",
  untrusted_output: true,
  permissions: { read: ["$ROOTS"] },
  max_output_chars: 15_000,
  parameters: z.object({ path: z.string().min(1) }),
  async run({ path }, context) {
    return JSON.stringify(await readJsonFile(context, path), null, 2);
  },
});

/** Reads (through a verified handle) and parses a JSON file, with an error that names it. */
export async function readJsonFile(context: ToolContext, path: string): Promise<unknown> {
  using opened = await context.openFile(path);
  const text = new TextDecoder().decode(await readAll(opened.file));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
}
