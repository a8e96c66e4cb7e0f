/**
 * A new background task's input: its zod schema, shared by the app's task
 * action (src/app/tasks.ts), which parses and defaults it, and the
 * `create_task` tool (src/builtins/create_task.ts), whose parameters are
 * derived from it — so a model and a person meet the same limits
 * (task_limits.ts). Zod only: it knows no action, store or tool.
 */

import { z } from "zod";
import {
  MAX_BLOCKERS,
  MAX_PRIORITY,
  MAX_TASK_PROMPT_CHARS,
  MAX_TASK_TITLE_CHARS,
} from "./task_limits.ts";

/** A new task. `prompt` defaults to the title (the action does that). */
export const newTaskInput = z.strictObject({
  title: z.string().trim().min(1).max(MAX_TASK_TITLE_CHARS),
  prompt: z.string().min(1).max(MAX_TASK_PROMPT_CHARS).optional(),
  priority: z.number().int().min(-MAX_PRIORITY).max(MAX_PRIORITY).default(0),
  blocked_by: z.array(z.number().int().min(1)).max(MAX_BLOCKERS).default([]),
});
