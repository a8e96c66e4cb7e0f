/** The `build_tool` tool: the model writes a new tool, which is checked in a sandbox and registered at once. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "build_tool",
  description:
    `Create a new tool for later use. \`code\` is a TypeScript module whose default export is the tool:
export default {
  name: "<name>", description: "…", category: "custom", side_effect: "none",
  parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  permissions: {},   // e.g. { read: ["$WORKSPACE"] }; only what the user's policy allows
  run(args, context) { return "result text"; },
};
It may import "zod" for parameters, nothing else. It runs sandboxed with only its declared permissions. Existing tools are never overwritten.`,
  category: "meta",
  side_effect: "local",
  untrusted_output: false,
  default_policy: "ask",
  services: ["tools"],
  timeout_ms: 60_000,
  parameters: z.object({
    name: z.string().regex(
      /^[a-z][a-z0-9_]{0,63}$/,
      "lower-case letters, digits and _, starting with a letter",
    ),
    description: z.string().min(1).max(2_000),
    code: z.string().min(1).max(100_000).describe("The tool module's TypeScript source"),
  }),
  async run({ name, description, code }, context) {
    return await context.services.call("tools.build", { name, description, code });
  },
});
