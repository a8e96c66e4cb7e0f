/** The `remember_this` tool: a timestamped entry in MEMORY.md. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "remember_this",
  description:
    "Save a lasting fact or instruction to long-term memory (MEMORY.md), e.g. the user's preferences, people in their life, decisions. One self-contained statement per call.",
  category: "memory",
  side_effect: "local",
  untrusted_output: false,
  services: ["memory"],
  parameters: z.object({
    text: z.string().min(1).max(10_000).describe("The fact, stated so it makes sense on its own"),
  }),
  async run({ text }, context) {
    const path = await context.services.call("memory.remember", { text });
    return `Remembered in memory/${path}.`;
  },
});
