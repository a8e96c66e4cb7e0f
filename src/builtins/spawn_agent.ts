/** The `spawn_agent` tool: a child agent with its own conversation and the same tools. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "spawn_agent",
  description:
    "Hand a self-contained task to a sub-agent that works in its own conversation with the same tools, and get its final answer. Give it all the context it needs; it cannot see this conversation.",
  category: "agents",
  side_effect: "none",
  untrusted_output: false,
  services: ["agent"],
  timeout_ms: 600_000,
  max_output_chars: 20_000,
  parameters: z.object({
    task: z.string().min(1).max(20_000).describe("What the sub-agent should do"),
    context: z.string().max(50_000).optional().describe("Facts it needs to do it"),
  }),
  async run({ task, context: brief }, context) {
    return await context.services.call("agent.run", { task, context: brief ?? "" });
  },
});
