/** The `create_task` tool: work for a background worker to do on its own. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "create_task",
  description:
    "Queue a background task: work the assistant does on its own, in its own conversation, while the chat goes on " +
    "(research, a long file job). Higher priority runs first; blocked_by lists task ids that must complete first.",
  category: "scheduling",
  side_effect: "local",
  untrusted_output: false,
  services: ["tasks"],
  parameters: z.object({
    title: z.string().min(1).max(200),
    prompt: z.string().min(1).max(20_000).describe(
      "The whole instruction; the worker sees only this",
    ),
    priority: z.number().int().min(-1_000).max(1_000).default(0),
    blocked_by: z.array(z.number().int().min(1)).max(100).default([]),
  }),
  async run(args, context) {
    const task = await context.services.call("tasks.add", args) as { id: number; title: string };
    return `Queued background task ${task.id} '${task.title}'. Check on it with view_task.`;
  },
});
