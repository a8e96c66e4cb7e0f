/**
 * The `build_skill` tool: the model writes a skill — in the open Agent Skills
 * format (a SKILL.md of instructions, listed to every later turn and read
 * with use_skill), and/or a TypeScript workflow the user runs as `/name input`.
 */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "build_skill",
  description:
    `Create a skill. With \`instructions\` (Markdown), an Agent Skill: a SKILL.md whose name and description every later turn sees, and whose instructions are read with use_skill when a task matches it. With \`steps\`, a workflow the user runs by typing /<name> <input> in chat, or through run_skill. \`steps\` is a TypeScript module:
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
    // Checked where the skill is written: an Agent Skill's name and a workflow's differ.
    name: z.string().min(1).max(64).describe(
      "Lower-case letters, digits and single hyphens (a workflow's may hold _)",
    ),
    description: z.string().min(1).max(1_024).describe(
      "What it does and when to use it",
    ),
    instructions: z.string().min(1).max(100_000).optional().describe(
      "An Agent Skill's instructions, in Markdown",
    ),
    steps: z.string().min(1).max(100_000).optional().describe(
      "A workflow's TypeScript source",
    ),
  }).refine((args) => args.instructions !== undefined || args.steps !== undefined, {
    message: "give instructions (an Agent Skill), steps (a workflow), or both",
    path: ["instructions"],
  }),
  async run({ name, description, instructions, steps }, context) {
    const built: string[] = [];
    if (instructions !== undefined) {
      built.push(
        await context.services.call("skills.create", { name, description, instructions }),
      );
    }
    if (steps !== undefined) {
      built.push(
        await context.services.call("skills.build", { name, description, code: steps }),
      );
    }
    return built.join("\n");
  },
});
