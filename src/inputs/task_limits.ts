/**
 * The limits of a background task's input, as plain numbers: the queue
 * (src/store/tasks.ts) holds to them without loading zod, and the schema
 * beside this file (tasks.ts) is built from them. It imports nothing.
 */

/**
 * Priorities run from -MAX_PRIORITY to MAX_PRIORITY. Bounded because an integer
 * SQLite cannot hand back as a JS number would break every later read of the queue.
 */
export const MAX_PRIORITY = 1_000;
/** Most tasks one task may wait for: a plan, not a graph of the whole queue. */
export const MAX_BLOCKERS = 100;
/** Longest task title: a line in a list. */
export const MAX_TASK_TITLE_CHARS = 200;
/** Longest task prompt: the whole instruction a worker sees, a long brief, not a book. */
export const MAX_TASK_PROMPT_CHARS = 100_000;
/** Most tasks one listing returns: a page of the queue, not the whole history. */
export const MAX_TASK_LIST = 1_000;
