/** The `cancel_task` tool: removes a scheduled job or cancels a background task. */

import { z } from "zod";
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
    schedule: z.string().min(1).optional().describe("Name or id of a scheduled job to remove"),
    task: z.number().int().min(1).optional().describe("Id of a background task to cancel"),
  }).refine((args) => (args.schedule === undefined) !== (args.task === undefined), {
    message: "give exactly one of 'schedule' or 'task'",
  }),
  async run({ schedule, task }, context) {
    if (schedule !== undefined) {
      const job = await context.services.call("schedule.cancel", { key: schedule }) as {
        id: number;
        name: string;
      };
      return `Removed scheduled job ${job.id} '${job.name}'; it will not run again.`;
    }
    const cancelled = await context.services.call("tasks.cancel", { id: task }) as {
      id: number;
      title: string;
    };
    return `Cancelled background task ${cancelled.id} '${cancelled.title}'.`;
  },
});
