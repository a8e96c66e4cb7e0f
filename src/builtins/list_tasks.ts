/**
 * The `list_tasks` tool: scheduled jobs and background tasks, with their
 * state. Its status filter is the app's listing's (src/inputs/tasks.ts).
 */

import { z } from "zod";
import { listTasksInput } from "../inputs/tasks.ts";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "list_tasks",
  description:
    "List scheduled jobs (from schedule_task) and background tasks (from create_task) with their state and next runs.",
  category: "scheduling",
  side_effect: "none",
  untrusted_output: false,
  services: ["schedule", "tasks"],
  parameters: z.object({
    kind: z.enum(["all", "scheduled", "background"]).default("all"),
    status: listTasksInput.shape.status.describe("Background tasks in this state only"),
  }),
  async run({ kind, status }, context) {
    const parts: string[] = [];
    if (kind !== "background") {
      const jobs = await context.services.call("schedule.list", {});
      parts.push(
        jobs.length === 0
          ? "Scheduled jobs: none."
          : `Scheduled jobs:\n${
            jobs.map((job) =>
              `- job ${job.id} '${job.name}': ${job.schedule} (${job.timezone})${
                job.enabled ? "" : ", disabled"
              }; next ${job.next_run ?? "none"}; last ${job.last_status ?? "never run"}${
                job.missed_runs ? `; ${job.missed_runs} missed while hob was off` : ""
              }`
            ).join("\n")
          }`,
      );
    }
    if (kind !== "scheduled") {
      const tasks = await context.services.call("tasks.list", { status });
      parts.push(
        tasks.length === 0
          ? "Background tasks: none."
          : `Background tasks:\n${
            tasks.map((task) =>
              `- task ${task.id} '${task.title}': ${task.status}${
                task.priority ? `, priority ${task.priority}` : ""
              }${task.waiting_reason ? ` (${task.waiting_reason})` : ""}`
            ).join("\n")
          }`,
      );
    }
    return parts.join("\n\n");
  },
});
