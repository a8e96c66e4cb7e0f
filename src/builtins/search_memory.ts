/** The `search_memory` tool: hybrid (keyword + meaning) search over the user's memory files. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "search_memory",
  description:
    "Search the user's memory (MEMORY.md, daily logs, and any notes under memory/) by keywords and meaning. Returns file paths with line ranges and the lines of each that match best (… marks lines left out); read more with memory_get.",
  category: "memory",
  side_effect: "none",
  untrusted_output: false,
  services: ["memory"],
  parameters: z.object({
    query: z.string().min(1).max(1_000).describe("What to look for, in your own words"),
    limit: z.number().int().min(1).max(20).default(5),
  }),
  async run({ query, limit }, context) {
    const hits = await context.services.call("memory.search", { q: query, limit });
    if (hits.length === 0) return `Nothing in memory matches '${query}'.`;
    return hits.map((hit, i) =>
      `${i + 1}. memory/${hit.path}:${hit.start_line}-${hit.end_line}${
        hit.heading ? ` (${hit.heading})` : ""
      }\n${hit.snippet.replace(/^/gm, "   ")}`
    ).join("\n");
  },
});
