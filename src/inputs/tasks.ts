/**
 * A background task's inputs — a new one, a listing, one by id — as zod
 * schemas shared by the app's task actions (src/app/tasks.ts), which parse
 * and default them, and the task tools (create_task, list_tasks, view_task,
 * cancel_task), whose parameters are derived from them — so a model and a
 * person meet the same limits (task_limits.ts). Zod only: it knows no
 * action, store or tool.
 */

import { z } from "zod";
import {
  MAX_BLOCKERS,
  MAX_PRIORITY,
  MAX_TASK_LIST,
  MAX_TASK_PROMPT_CHARS,
  MAX_TASK_TITLE_CHARS,
} from "./task_limits.ts";

/** Every state a task can be in, as filters name them (the queue's `TaskStatus`). */
export const TASK_STATUSES = [
  "pending",
  "in_progress",
  "waiting",
  "complete",
  "failed",
  "cancelled",
] as const;

/** A new task. `prompt` defaults to the title (the action does that). */
export const newTaskInput = z.strictObject({
  title: z.string().trim().min(1).max(MAX_TASK_TITLE_CHARS),
  prompt: z.string().min(1).max(MAX_TASK_PROMPT_CHARS).optional(),
  priority: z.number().int().min(-MAX_PRIORITY).max(MAX_PRIORITY).default(0),
  blocked_by: z.array(z.number().int().min(1)).max(MAX_BLOCKERS).default([]),
});
/** A listing: only tasks in `status`, newest first. `limit` may come as a query string's digits. */
export const listTasksInput = z.object({
  status: z.enum(TASK_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_TASK_LIST).default(100),
});
/** One task, by id. */
export const taskIdInput = z.object({ id: z.number().int().min(1) });
