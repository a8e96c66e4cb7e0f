/**
 * The `schedule_task` tool: a job that sends a prompt to the agent on a
 * schedule. Its parameters are the app's new-job schema
 * (src/inputs/schedules.ts), the fields a model sets, described for it; the
 * action parses what the tool sends.
 */

import { z } from "zod";
import { newScheduleInput } from "../inputs/schedules.ts";
import { defineTool } from "../sandbox/definition.ts";

const job = newScheduleInput.shape;

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
  // Not strict as the action is: a model's stray field is dropped here.
  parameters: z.object({
    name: job.name.describe("Short unique name, e.g. morning-briefing"),
    prompt: job.prompt.describe("What to do when it runs"),
    schedule: job.schedule,
    timezone: job.timezone.describe(
      "IANA zone for cron and once:, e.g. Europe/Berlin; default: the user's",
    ),
    missed_policy: job.missed_policy
      .describe("If hob was off when it fell due: run once on start (default) or skip"),
    // A model leaves it out rather than sending null.
    deliver: job.deliver.unwrap().unwrap().optional()
      .describe("Also send each result to the user on this channel (e.g. a reminder on Telegram)"),
  }),
  async run(args, context) {
    const added = await context.services.call("schedule.add", args);
    return `Scheduled job ${added.id} '${added.name}' (${added.schedule}, ${added.timezone}); next run ${added.next_run} (UTC).`;
  },
});
