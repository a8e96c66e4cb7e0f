/**
 * The `use_skill` tool: an Agent Skill's instructions, read when the model
 * takes up a task the skill's description covers (every turn lists only the
 * names and descriptions). The instructions are their author's words,
 * labelled: reading them taints the turn, and only the tools the owner
 * granted the skill run unasked in it.
 */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "use_skill",
  description:
    "Read an installed skill's instructions (the skills are listed in your instructions) before doing a task it covers. Returns the instructions and the skill's other files.",
  category: "meta",
  side_effect: "none",
  // The author's words: labelled, and the turn that reads them is tainted.
  untrusted_output: true,
  services: ["skills"],
  parameters: z.object({
    name: z.string().min(1).max(64).describe("The skill's name, as listed"),
  }),
  async run({ name }, context) {
    return await context.services.call("skills.use", { name });
  },
});
