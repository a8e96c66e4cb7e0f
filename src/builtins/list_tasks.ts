/** The `list_tasks` tool: scheduled jobs and background tasks, with their state. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

interface JobLine {
  id: number;
  name: string;
  schedule: string;
  timezone: string;
  enabled: boolean;
  next_run: string | null;
  last_status: string | null;
  missed_runs: number;
}
interface TaskLine {
  id: number;
  title: string;
  status: string;
  priority: number;
  waiting_reason: string | null;
}

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
    status: z.enum(["pending", "in_progress", "waiting", "complete", "failed", "cancelled"])
      .optional()
      .describe("Background tasks in this state only"),
  }),
  async run({ kind, status }, context) {
    const parts: string[] = [];
    if (kind !== "background") {
      const jobs = await context.services.call("schedule.list", {}) as JobLine[];
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
      const tasks = await context.services.call("tasks.list", { status }) as TaskLine[];
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
