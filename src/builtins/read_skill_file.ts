/**
 * The `read_skill_file` tool: one file of an installed skill (a reference, a
 * template, a script to read), loaded only when the skill's instructions
 * point to it; labelled as the skill author's words.
 */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "read_skill_file",
  description:
    "Read a file of an installed skill, e.g. references/forms.md, when its instructions (use_skill) point to it.",
  category: "meta",
  side_effect: "none",
  untrusted_output: true,
  services: ["skills"],
  parameters: z.object({
    name: z.string().min(1).max(64).describe("The skill's name"),
    path: z.string().min(1).max(1_000).describe("The file's path inside the skill's folder"),
  }),
  async run({ name, path }, context) {
    return await context.services.call("skills.file", { name, path });
  },
});
