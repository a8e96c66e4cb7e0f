/**
 * The scheduled-job actions — list, get, add, update, remove, run now, read
 * the run log — each defined once: one zod schema for its input (the one the
 * OpenAPI document shows), its defaults, and its refusals as
 * {@linkcode ActionError}s. REST, the page, the CLI and the services tools call are
 * translators over these. It knows the job store and the scheduler, and
 * asks whether a model exists through a function it is given: no provider,
 * no wire format.
 */

import { z } from "zod";
import type { Scheduler } from "../scheduler/scheduler.ts";
import { ScheduleError } from "../scheduler/schedule.ts";
import { type Job, JobError, type JobRun, type JobView, type SqliteJobs } from "../store/jobs.ts";
import {
  jobKey,
  newScheduleInput,
  scheduleKeyInput,
  schedulePatchBody,
} from "../inputs/schedules.ts";
import { ActionError, checkInput } from "./errors.ts";

/** Most runs one read of a job's log returns. */
export const MAX_RUNS_LIST = 1_000;

export { newScheduleInput, scheduleKeyInput, schedulePatchBody };

/** A job and the fields to change. */
export const schedulePatchInput = schedulePatchBody.extend({ key: jobKey });
/** A job's run log, newest first. `limit` may come as a query string's digits. */
export const scheduleRunsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_RUNS_LIST).default(50),
});
/** A job and how much of its run log. */
export const scheduleRunsInput = scheduleRunsQuery.extend({ key: jobKey });

export type NewScheduleInput = z.input<typeof newScheduleInput>;
export type ScheduleKeyInput = z.input<typeof scheduleKeyInput>;
export type SchedulePatchInput = z.input<typeof schedulePatchInput>;
export type ScheduleRunsInput = z.input<typeof scheduleRunsInput>;

/** Options of {@linkcode ScheduleActions.add}. */
export interface AddScheduleOptions {
  /**
   * The scheduling turn had read untrusted content: from where. Every run of
   * the job starts tainted. Only the services tools call set it (from the calling turn's
   * taint); a person at the API, page or CLI schedules clean jobs.
   * @default {null}
   */
  taint?: string | null;
}

/** What the schedule actions work on. */
export interface ScheduleActionsDeps {
  jobs: SqliteJobs;
  scheduler: Scheduler;
  /** Why `model` cannot be used, or null when it can (the provider router's check). */
  checkModel(model: string): string | null;
}

/** The schedule actions. Each checks its input and refuses with an {@linkcode ActionError}. */
export interface ScheduleActions {
  /** Every job, by name, with what its run log says. */
  list(): JobView[];
  /** `not_found` when there is no such job. */
  get(input: ScheduleKeyInput): JobView;
  /**
   * Schedules a prompt: `invalid` naming `schedule`, `timezone` or `model`
   * when one cannot be used, `duplicate` when the name is taken.
   */
  add(input: NewScheduleInput, options?: AddScheduleOptions): JobView;
  /** Changes a job, refusing as `add` does. */
  update(input: SchedulePatchInput): JobView;
  /** Deletes a job and its run log; returns the job as it was. */
  remove(input: ScheduleKeyInput): Job;
  /** Runs a job now and resolves with its run; `busy` when it is running already. */
  run(input: ScheduleKeyInput): Promise<JobRun>;
  /** A job's run log, newest first. */
  runs(input: ScheduleRunsInput): JobRun[];
}

/**
 * The schedule actions over a job store and its scheduler.
 *
 * @example
 * ```ts
 * const schedules = createScheduleActions({ jobs, scheduler, checkModel: llm.checkModel });
 * const job = schedules.add({ name: "standup", prompt: "Plan my day", schedule: "0 9 * * 1-5" });
 * await schedules.run({ key: job.id });
 * ```
 */
export function createScheduleActions(deps: ScheduleActionsDeps): ScheduleActions {
  const { jobs, scheduler } = deps;
  const find = (key: number | string) => {
    const job = jobs.get(key);
    if (!job) throw new ActionError("not_found", `There is no job '${key}'`, { field: "key" });
    return job;
  };
  const checkModel = (model: string | null | undefined) => {
    const problem = model ? deps.checkModel(model) : null;
    if (problem) throw new ActionError("invalid", problem, { field: "model" });
  };
  return {
    list: () => jobs.views(),
    get(input) {
      return jobs.view(find(checkInput(scheduleKeyInput, input).key));
    },
    add(input, options = {}) {
      const fields = checkInput(newScheduleInput, input);
      checkModel(fields.model);
      return jobs.view(schedulerCall(() => scheduler.add({ ...fields, taint: options.taint })));
    },
    update(input) {
      const { key, ...patch } = checkInput(schedulePatchInput, input);
      const job = find(key);
      checkModel(patch.model);
      return jobs.view(schedulerCall(() => scheduler.update(job.id, patch)));
    },
    remove(input) {
      const job = find(checkInput(scheduleKeyInput, input).key);
      jobs.delete(job.id);
      return job;
    },
    async run(input) {
      const job = find(checkInput(scheduleKeyInput, input).key);
      try {
        return await scheduler.runNow(job.id);
      } catch (error) {
        throw asActionError(error);
      }
    },
    runs(input) {
      const { key, limit } = checkInput(scheduleRunsInput, input);
      return jobs.runs(find(key).id, limit);
    },
  };
}

/** Runs a scheduler call, turning its refusals into ActionErrors. */
function schedulerCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw asActionError(error);
  }
}

/**
 * A bad schedule or zone is `invalid` naming its field; a JobError keeps its
 * code (`duplicate`, `not_found`, `busy`). Anything else is not a refusal.
 */
function asActionError(error: unknown): unknown {
  if (error instanceof ScheduleError) {
    const field = /time zone/.test(error.message) ? "timezone" : "schedule";
    return new ActionError("invalid", error.message, { field, cause: error });
  }
  if (error instanceof JobError) {
    const next = error.code === "duplicate"
      ? " — give this one another name, or change or remove the job that has it"
      : "";
    return new ActionError(error.code, `${error.message}${next}`, { cause: error });
  }
  return error;
}
