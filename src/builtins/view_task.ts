/**
 * The `view_task` tool: one background task, its state and its output. Its
 * parameter is the app's task id (src/inputs/tasks.ts).
 */

import { taskIdInput } from "../inputs/tasks.ts";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "view_task",
  description:
    "Show a background task: its state, its output or why it waits or failed, and its conversation id.",
  category: "scheduling",
  side_effect: "none",
  untrusted_output: false,
  services: ["tasks"],
  parameters: taskIdInput,
  async run({ id }, context) {
    const task = await context.services.call("tasks.get", { id });
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
