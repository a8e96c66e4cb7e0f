/**
 * A scheduled job's input: the zod schemas shared by the app's schedule
 * actions (src/app/schedules.ts), which parse and default them, and the
 * scheduling tools (schedule_task, cancel_task), whose parameters are derived
 * from them — so a model and a person meet the same limits. Zod only: it
 * knows no action, store or tool.
 */

import { z } from "zod";
import { CHANNEL_NAMES } from "./channels.ts";

/** A job's name: unique, a word or two (`morning-briefing`). */
export const jobName = z.string().trim().min(1).max(100);

const jobFields = {
  name: jobName,
  prompt: z.string().min(1).max(100_000),
  schedule: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100).optional(),
  missed_policy: z.enum(["run_once", "skip"]).optional(),
  model: z.string().min(3).nullable().optional(),
  deliver: z.enum(CHANNEL_NAMES).nullable().optional().describe(
    "Also send each run's result to you on this channel",
  ),
  enabled: z.boolean().optional(),
};
/** A job: a cron expression, `every 10m` or `once:<time>`, read in `timezone` (default: hob's). */
export const newScheduleInput = z.strictObject(jobFields);
/** The fields of a job to change; a new schedule or zone recomputes its next run. */
export const schedulePatchBody = z.strictObject(jobFields).partial();
/** A job, by id or by name (a name of digits is taken as an id). */
export const jobKey = z.union([z.number().int().min(1), jobName]);
/** One job. */
export const scheduleKeyInput = z.object({ key: jobKey });
