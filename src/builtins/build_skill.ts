/** The `build_skill` tool: the model writes a multi-step workflow the user can run as `/name args`. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "build_skill",
  description:
    `Create a skill: a multi-step workflow the user runs by typing /<name> <input> in chat, or through run_skill. \`steps\` is a TypeScript module:
export default {
  name: "<name>", description: "…",
  async run(input, skill) {
    const text = await skill.tool("read_file", { path: input });  // any tool, under the same policies
    return await skill.model("Summarise:\\n" + text);               // one answer from the current model
  },
};
It has no other access. Existing skills are never overwritten.`,
  category: "meta",
  side_effect: "local",
  untrusted_output: false,
  default_policy: "ask",
  services: ["skills"],
  timeout_ms: 60_000,
  parameters: z.object({
    name: z.string().regex(
      /^[a-z][a-z0-9_-]{0,63}$/,
      "lower-case letters, digits, _ and -, starting with a letter",
    ),
    description: z.string().min(1).max(2_000),
    steps: z.string().min(1).max(100_000).describe("The skill module's TypeScript source"),
  }),
  async run({ name, description, steps }, context) {
    return String(await context.services.call("skills.build", { name, description, code: steps }));
  },
});
