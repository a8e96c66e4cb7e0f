/**
 * The application layer: hob's actions, each defined once with its input
 * schema, defaults and typed refusals, over the stores — and every way in
 * (REST in src/http, the page in src/web, the CLI in src/cli, the tool host
 * in src/runtime/host.ts) a thin translator from its wire format to these
 * calls and from {@linkcode ActionError} back to its wire format.
 *
 * - `errors.ts`: {@linkcode ActionError} (`invalid`, `not_found`, `conflict`,
 *   `duplicate`, `busy`) and `checkInput`, the one way input is checked.
 * - `tasks.ts`: background tasks — add, list, counts, get, cancel, resume.
 * - `schedules.ts`: scheduled jobs — list, get, add, update, remove, run, runs.
 * - `notifications.ts`: notifications — list, count the unread, mark read.
 *
 * Provenance is an option only the tool host sets: a task or job that a
 * tainted turn creates carries the turn's taint, so its runs start tainted.
 *
 * The layer knows the stores and the scheduler; it knows no way in, no wire
 * format, no runtime (the composition root builds it) and no model provider
 * (it is handed the router's `checkModel`).
 */

import type { Scheduler } from "../scheduler/scheduler.ts";
import type { SqliteJobs } from "../store/jobs.ts";
import type { SqliteNotifications } from "../store/notifications.ts";
import type { SqliteTasks } from "../store/tasks.ts";
import { createNotificationActions, type NotificationActions } from "./notifications.ts";
import { createScheduleActions, type ScheduleActions } from "./schedules.ts";
import { createTaskActions, type TaskActions } from "./tasks.ts";

/** The actions of one hob home. */
export interface AppActions {
  tasks: TaskActions;
  schedules: ScheduleActions;
  notifications: NotificationActions;
}

/** What the actions work on. */
export interface AppDeps {
  tasks: SqliteTasks;
  jobs: SqliteJobs;
  scheduler: Scheduler;
  notifications: SqliteNotifications;
  /** Why a model cannot be used, or null (the provider router's check). */
  checkModel(model: string): string | null;
}

/**
 * Builds the actions of a home (the runtime does, once).
 *
 * @example
 * ```ts
 * const app = createAppActions({
 *   tasks,
 *   jobs,
 *   scheduler,
 *   notifications,
 *   checkModel: (model) => llm.checkModel(model),
 * });
 * app.tasks.add({ title: "Tidy notes" });
 * ```
 */
export function createAppActions(deps: AppDeps): AppActions {
  return {
    tasks: createTaskActions(deps.tasks),
    schedules: createScheduleActions({
      jobs: deps.jobs,
      scheduler: deps.scheduler,
      checkModel: deps.checkModel,
    }),
    notifications: createNotificationActions(deps.notifications),
  };
}
