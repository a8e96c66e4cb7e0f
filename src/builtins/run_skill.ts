/** The `run_skill` tool: run one of the user's skills with some input. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "run_skill",
  description:
    "Run one of the user's skills (list_skills shows them) with an input text, and get its result.",
  category: "meta",
  side_effect: "none",
  untrusted_output: false,
  services: ["skills"],
  timeout_ms: 600_000,
  max_output_chars: 20_000,
  parameters: z.object({
    name: z.string().min(1).max(64),
    input: z.string().max(50_000).default(""),
  }),
  async run({ name, input }, context) {
    return await context.services.call("skills.run", { name, input });
  },
});
