/** The `list_skills` tool: the user's skills and what they do. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "list_skills",
  description: "List the user's skills (workflows run as /name in chat or with run_skill).",
  category: "meta",
  side_effect: "none",
  untrusted_output: false,
  services: ["skills"],
  parameters: z.object({}),
  async run(_args, context) {
    const skills = await context.services.call("skills.list", {});
    if (skills.length === 0) return "No skills yet; build_skill makes one.";
    return skills.map((s) => `/${s.name} — ${s.description}`).join("\n");
  },
});
