/** The `log_note` tool: a timestamped note in today's log. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "log_note",
  description:
    "Write a note in today's daily log (memory/YYYY-MM-DD.md): what happened, what was done, what is pending.",
  category: "memory",
  side_effect: "local",
  untrusted_output: false,
  services: ["memory"],
  parameters: z.object({ text: z.string().min(1).max(10_000) }),
  async run({ text }, context) {
    const path = await context.services.call("memory.log", { text });
    return `Noted in memory/${path}.`;
  },
});
