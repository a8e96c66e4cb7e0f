/** The `memory_write` tool: replace a named section of MEMORY.md (or add it). */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "memory_write",
  description:
    "Replace the whole content of one section of MEMORY.md (by its heading, e.g. 'Preferences'), or add the section if it is missing. Read it first: what is not in `content` is gone.",
  category: "memory",
  side_effect: "local",
  untrusted_output: false,
  services: ["memory"],
  parameters: z.object({
    section: z.string().min(1).max(200).describe("The section's heading text"),
    content: z.string().max(20_000).describe("The section's new Markdown body"),
  }),
  async run({ section, content }, context) {
    const path = await context.services.call("memory.write", { section, content });
    return `Wrote the section '${section}' of memory/${path}.`;
  },
});
