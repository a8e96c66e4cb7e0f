/** The `memory_get` tool: lines of a memory file, to read on from a search hit. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "memory_get",
  description:
    "Read lines of a memory file, e.g. after search_memory: path relative to memory/ (or starting with memory/).",
  category: "memory",
  side_effect: "none",
  untrusted_output: false,
  services: ["memory"],
  parameters: z.object({
    path: z.string().min(1).max(500).describe("e.g. MEMORY.md or 2026-11-22.md"),
    from: z.number().int().min(1).default(1).describe("First line (1-based)"),
    lines: z.number().int().min(1).max(500).default(60),
  }),
  async run({ path, from, lines }, context) {
    const excerpt = await context.services.call("memory.get", { path, from, lines });
    return `memory/${excerpt.path}, lines ${excerpt.from}-${excerpt.to} of ${excerpt.total_lines}:\n${excerpt.text}`;
  },
});
