/** The `read_json` tool: a JSON file, pretty-printed, up to 15,000 characters. */

import { z } from "zod";
import { defineTool } from "../definition.ts";

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
    return JSON.stringify(await readJsonFile(await context.resolvePath(path), path), null, 2);
  },
});

/** Reads and parses a JSON file, with an error that names it. */
export async function readJsonFile(file: string, shown: string): Promise<unknown> {
  const text = await Deno.readTextFile(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${shown} is not valid JSON: ${(error as Error).message}`);
  }
}
