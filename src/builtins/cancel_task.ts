/**
 * The `cancel_task` tool: removes a scheduled job or cancels a background
 * task. A job is named as the app's actions name one, by name or by id in
 * digits (src/inputs/schedules.ts); a task by the app's task id.
 */

import { z } from "zod";
import { jobName } from "../inputs/schedules.ts";
import { taskIdInput } from "../inputs/tasks.ts";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "cancel_task",
  description:
    "Cancel a scheduled job (give 'schedule': its name or id, from list_tasks) or a background task (give 'task': its id).",
  category: "scheduling",
  side_effect: "local",
  untrusted_output: false,
  services: ["schedule", "tasks"],
  parameters: z.object({
    schedule: jobName.optional().describe("Name or id of a scheduled job to remove"),
    task: taskIdInput.shape.id.optional().describe("Id of a background task to cancel"),
  }).refine((args) => (args.schedule === undefined) !== (args.task === undefined), {
    message: "give exactly one of 'schedule' or 'task'",
  }),
  async run({ schedule, task }, context) {
    if (schedule !== undefined) {
      const job = await context.services.call("schedule.cancel", { key: schedule });
      return `Removed scheduled job ${job.id} '${job.name}'; it will not run again.`;
    }
    // The refinement above: with no job named, a task is.
    const cancelled = await context.services.call("tasks.cancel", { id: task! });
    return `Cancelled background task ${cancelled.id} '${cancelled.title}'.`;
  },
});
