/** The `view_task` tool: one background task, its state and its output. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "view_task",
  description:
    "Show a background task: its state, its output or why it waits or failed, and its conversation id.",
  category: "scheduling",
  side_effect: "none",
  untrusted_output: false,
  services: ["tasks"],
  parameters: z.object({ id: z.number().int().min(1) }),
  async run({ id }, context) {
    const task = await context.services.call("tasks.get", { id }) as {
      id: number;
      title: string;
      prompt: string;
      status: string;
      priority: number;
      blocked_by: number[];
      output: string;
      waiting_reason: string | null;
      attempts: number;
      conversation_id: string | null;
      updated_at: string;
    };
    return [
      `Task ${task.id} '${task.title}': ${task.status} (updated ${task.updated_at}, ${task.attempts} run(s))`,
      task.blocked_by.length ? `Blocked by: ${task.blocked_by.join(", ")}` : "",
      task.waiting_reason ? `Waiting: ${task.waiting_reason}` : "",
      task.output ? `Output:\n${task.output}` : "",
      `Prompt:\n${task.prompt}`,
      task.conversation_id ? `Conversation: ${task.conversation_id}` : "",
    ].filter(Boolean).join("\n");
  },
});
