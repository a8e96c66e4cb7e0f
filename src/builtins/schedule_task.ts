/** The `schedule_task` tool: a job that sends a prompt to the agent on a schedule. */

import { z } from "zod";
import { defineTool } from "../sandbox/definition.ts";

export default defineTool({
  name: "schedule_task",
  description:
    "Schedule a prompt to run on its own later or repeatedly (a reminder, a daily summary, a periodic check). " +
    "schedule: 5-field cron like '0 9 * * 1-5', 'every 30m' (s/m/h/d), or 'once:2026-12-24T18:00' (local time). " +
    "The prompt runs without the user watching, so write it as a complete instruction.",
  category: "scheduling",
  side_effect: "local",
  untrusted_output: false,
  services: ["schedule"],
  parameters: z.object({
    name: z.string().min(1).max(100).describe("Short unique name, e.g. morning-briefing"),
    prompt: z.string().min(1).max(20_000).describe("What to do when it runs"),
    schedule: z.string().min(1).max(200),
    timezone: z.string().optional().describe(
      "IANA zone for cron and once:, e.g. Europe/Berlin; default: the user's",
    ),
    missed_policy: z.enum(["run_once", "skip"]).optional()
      .describe("If hob was off when it fell due: run once on start (default) or skip"),
    deliver: z.enum(["telegram", "email", "matrix"]).optional()
      .describe("Also send each result to the user on this channel (e.g. a reminder on Telegram)"),
  }),
  async run(args, context) {
    const job = await context.services.call("schedule.add", args) as {
      id: number;
      name: string;
      schedule: string;
      timezone: string;
      next_run: string | null;
    };
    return `Scheduled job ${job.id} '${job.name}' (${job.schedule}, ${job.timezone}); next run ${job.next_run} (UTC).`;
  },
});
