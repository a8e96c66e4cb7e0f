/**
 * The background-task actions — add, list, count, get, cancel, resume — each
 * defined once: one zod schema for its input (the one the OpenAPI document
 * shows), its defaults, and its refusals as {@linkcode ActionError}s. REST,
 * the page, the CLI and the services tools call are translators over these. It knows
 * the task queue (SqliteTasks) and nothing of any wire format.
 */

import { z } from "zod";
import {
  listTasksInput,
  newTaskInput,
  TASK_STATUSES as INPUT_STATUSES,
  taskIdInput,
} from "../inputs/tasks.ts";
import { type SqliteTasks, type Task, TaskError, type TaskStatus } from "../store/tasks.ts";
import { ActionError, checkInput } from "./errors.ts";

export { listTasksInput, newTaskInput, taskIdInput } from "../inputs/tasks.ts";
export { MAX_BLOCKERS, MAX_PRIORITY, MAX_TASK_LIST } from "../inputs/task_limits.ts";

/** Every state a task can be in, as filters name them. */
export const TASK_STATUSES = INPUT_STATUSES satisfies readonly TaskStatus[];
/** What resuming takes beyond the id: a note added to the task's prompt. */
export const resumeTaskBody = z.strictObject({ note: z.string().max(10_000).optional() });
/** A task to resume, with an optional note. */
export const resumeTaskInput = resumeTaskBody.extend({ id: z.number().int().min(1) });

export type NewTaskInput = z.input<typeof newTaskInput>;
export type ListTasksInput = z.input<typeof listTasksInput>;
export type TaskIdInput = z.input<typeof taskIdInput>;
export type ResumeTaskInput = z.input<typeof resumeTaskInput>;

/** Options of {@linkcode TaskActions.add}. */
export interface AddTaskOptions {
  /**
   * The creating turn had read untrusted content: from where. The task's
   * runs start tainted. Only the services tools call set it (from the calling turn's taint);
   * a person at the API, page or CLI creates clean tasks.
   * @default {null}
   */
  taint?: string | null;
}

/** The task actions. Each checks its input and refuses with an {@linkcode ActionError}. */
export interface TaskActions {
  /** Queues a task; `invalid` when a blocker does not exist. */
  add(input: NewTaskInput, options?: AddTaskOptions): Task;
  list(input?: ListTasksInput): Task[];
  /** How many tasks are in each state. */
  counts(): Record<TaskStatus, number>;
  /** `not_found` when there is no such task. */
  get(input: TaskIdInput): Task;
  /** `conflict` when the task has finished. */
  cancel(input: TaskIdInput): Task;
  /** Puts a parked, failed or cancelled task back in the queue; `conflict` otherwise. */
  resume(input: ResumeTaskInput): Task;
}

/**
 * The task actions over a queue.
 *
 * @example
 * ```ts
 * const tasks = createTaskActions(new SqliteTasks(db));
 * const task = tasks.add({ title: "Tidy notes", priority: 2 });
 * tasks.cancel({ id: task.id });
 * ```
 */
export function createTaskActions(tasks: SqliteTasks): TaskActions {
  const find = (id: number) => {
    const task = tasks.get(id);
    if (!task) throw new ActionError("not_found", `There is no task ${id}`, { field: "id" });
    return task;
  };
  return {
    add(input, options = {}) {
      const { title, prompt, priority, blocked_by } = checkInput(newTaskInput, input);
      return queueCall(() =>
        tasks.add({ title, prompt: prompt ?? title, priority, blocked_by, taint: options.taint })
      );
    },
    list(input = {}) {
      return tasks.list(checkInput(listTasksInput, input));
    },
    counts: () => tasks.counts(),
    get(input) {
      return find(checkInput(taskIdInput, input).id);
    },
    cancel(input) {
      const { id } = checkInput(taskIdInput, input);
      return queueCall(() => tasks.cancel(id));
    },
    resume(input) {
      const { id, note } = checkInput(resumeTaskInput, input);
      return queueCall(() => tasks.resume(id, note));
    },
  };
}

/** Runs a queue call, turning its TaskError into the ActionError of the same meaning. */
function queueCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (!(error instanceof TaskError)) throw error;
    // The schema held the priority to the queue's range already: what is left is a blocker.
    const field = error.code === "invalid"
      ? "blocked_by"
      : error.code === "not_found"
      ? "id"
      : undefined;
    throw new ActionError(error.code, error.message, { field, cause: error });
  }
}
