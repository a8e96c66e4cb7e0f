/**
 * The `create_task` tool: work for a background worker to do on its own. Its
 * parameters are the app's new-task schema (src/inputs/tasks.ts), with the
 * prompt required and described for the model, so the tool and the action
 * have the same limits; the action parses what the tool sends.
 */

import { z } from "zod";
import { newTaskInput } from "../inputs/tasks.ts";
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
  // Not strict as the action is: a model's stray field is dropped here, as it always was.
  parameters: z.object({
    ...newTaskInput.shape,
    prompt: newTaskInput.shape.prompt.unwrap().describe(
      "The whole instruction; the worker sees only this",
    ),
  }),
  async run(args, context) {
    const task = await context.services.call("tasks.add", args);
    return `Queued background task ${task.id} '${task.title}'. Check on it with view_task.`;
  },
});
