/**
 * Background tasks and the workers that run them, in SQLite. Claiming is one
 * UPDATE … RETURNING over the highest-priority unblocked pending task, so two
 * workers — in one process or in many sharing hob.db — never get the same
 * task. Claims of workers that are gone, or that ran far too long, are reset.
 */

import { MAX_PRIORITY } from "../inputs/task_limits.ts";
import { type Sql, statements } from "./statements.ts";
import { withWriteLock } from "./transaction.ts";
import type { DatabaseSync } from "node:sqlite";
import { isLiveOwner } from "./owner.ts";
import { timestamp } from "./timestamp.ts";

/** Where a task is in its life. */
export type TaskStatus =
  | "pending"
  | "in_progress"
  | "waiting"
  | "complete"
  | "failed"
  | "cancelled";
/** The states a task can no longer leave (but for a manual retry). */
export const FINISHED: readonly TaskStatus[] = ["complete", "failed", "cancelled"];

/** A task as stored. */
export interface Task {
  id: number;
  title: string;
  prompt: string;
  priority: number;
  status: TaskStatus;
  blocked_by: number[];
  output: string;
  waiting_reason: string | null;
  claimed_by: string | null;
  claimed_at: string | null;
  attempts: number;
  conversation_id: string | null;
  /** Set when a tainted turn created it: the untrusted content its prompt may come from. */
  taint: string | null;
  created_at: string;
  updated_at: string;
}

/** The fields of a new task. */
export interface NewTask {
  title: string;
  prompt: string;
  priority?: number;
  blocked_by?: number[];
  /** The creating turn had read untrusted content: from where. Its runs start tainted. */
  taint?: string | null;
}

/** A worker as registered. */
export interface WorkerRow {
  id: string;
  pid: number;
  kind: string;
  started_at: string;
  seen_at: string;
  task_id: number | null;
  alive: boolean;
}

/** Raised for a task operation that cannot be done; `code` says why. */
export class TaskError extends Error {
  override name = "TaskError";
  readonly code: "not_found" | "invalid" | "conflict";
  constructor(code: TaskError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

/** A task's row: `blocked_by` is its JSON text. */
interface TaskRow extends Omit<Task, "blocked_by"> {
  blocked_by: string;
}

const COLUMNS =
  "id, title, prompt, priority, status, blocked_by, output, waiting_reason, claimed_by, claimed_at, attempts, conversation_id, taint, created_at, updated_at";

/**
 * The task queue.
 *
 * @example
 * ```ts
 * const tasks = new SqliteTasks(db);
 * tasks.add({ title: "Tidy notes", prompt: "…" });
 * const task = tasks.claim("worker-1");
 * ```
 */
export class SqliteTasks {
  readonly #db: DatabaseSync;
  readonly #sql: Sql;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#sql = statements(db);
  }

  /**
   * Runs `work`, writes of this store, in one transaction once hob.db's write
   * lock is had: waiting without blocking while another program holds it
   * (see `withWriteLock`).
   */
  write<T>(work: () => T): Promise<T> {
    return withWriteLock(this.#db, work);
  }

  add(task: NewTask): Task {
    const priority = task.priority ?? 0;
    if (!Number.isInteger(priority) || Math.abs(priority) > MAX_PRIORITY) {
      throw new TaskError(
        "invalid",
        `priority must be an integer from -${MAX_PRIORITY} to ${MAX_PRIORITY}: got ${priority}`,
      );
    }
    const blockedBy = [...new Set(task.blocked_by ?? [])];
    for (const id of blockedBy) {
      if (!this.get(id)) throw new TaskError("invalid", `blocked_by: there is no task ${id}`);
    }
    const now = timestamp();
    const result = this.#sql(
      `INSERT INTO tasks (title, prompt, priority, status, blocked_by, taint, created_at, updated_at)
       VALUES (?, ?, ?, 'pending', ?, ?, ?, ?)`,
    ).run(
      task.title,
      task.prompt,
      priority,
      JSON.stringify(blockedBy),
      task.taint ?? null,
      now,
      now,
    );
    return this.get(Number(result.lastInsertRowid))!;
  }

  get(id: number): Task | undefined {
    const row = this.#sql<TaskRow>(`SELECT ${COLUMNS} FROM tasks WHERE id = ?`).get(id);
    return row ? toTask(row) : undefined;
  }

  /** Tasks, newest first; only those in `status` when given. */
  list(options: { status?: TaskStatus; limit?: number } = {}): Task[] {
    const { status, limit = 100 } = options;
    return this.#sql<TaskRow>(
      `SELECT ${COLUMNS} FROM tasks WHERE ? IS NULL OR status = ? ORDER BY id DESC LIMIT ?`,
    ).all(status ?? null, status ?? null, limit).map(toTask);
  }

  /** How many tasks are in each state. */
  counts(): Record<TaskStatus, number> {
    const counts: Record<TaskStatus, number> = {
      pending: 0,
      in_progress: 0,
      waiting: 0,
      complete: 0,
      failed: 0,
      cancelled: 0,
    };
    const rows = this.#sql<{ status: TaskStatus; n: number }>(
      "SELECT status, COUNT(*) AS n FROM tasks GROUP BY status",
    ).all();
    for (const row of rows) counts[row.status] = Number(row.n);
    return counts;
  }

  /**
   * Claims the highest-priority pending task whose blockers are all complete,
   * in one statement. Undefined when there is none.
   */
  claim(workerId: string): Task | undefined {
    const now = timestamp();
    const row = this.#sql<TaskRow>(
      `UPDATE tasks SET status = 'in_progress', claimed_by = ?, claimed_at = ?, attempts = attempts + 1, updated_at = ?
        WHERE id = (
          SELECT t.id FROM tasks t
           WHERE t.status = 'pending'
             AND NOT EXISTS (
               SELECT 1 FROM json_each(t.blocked_by) b JOIN tasks d ON d.id = b.value
                WHERE d.status != 'complete')
           ORDER BY t.priority DESC, t.id
           LIMIT 1)
          AND status = 'pending'
        RETURNING ${COLUMNS}`,
    ).get(workerId, now, now);
    return row ? toTask(row) : undefined;
  }

  /** Sets the conversation a task's run is in. */
  setConversation(id: number, conversationId: string): void {
    this.#sql("UPDATE tasks SET conversation_id = ?, updated_at = ? WHERE id = ?").run(
      conversationId,
      timestamp(),
      id,
    );
  }

  /**
   * Ends a worker's run of a task. Only the worker holding it can, so a task
   * cancelled or reset meanwhile stays as it is; returns whether it did.
   */
  finish(
    id: number,
    workerId: string,
    outcome: {
      status: "complete" | "failed" | "waiting" | "pending";
      output?: string;
      waiting_reason?: string | null;
    },
  ): boolean {
    const result = this.#sql(
      `UPDATE tasks SET status = ?, output = COALESCE(?, output), waiting_reason = ?, claimed_by = NULL, claimed_at = NULL,
              updated_at = ?
        WHERE id = ? AND claimed_by = ? AND status IN ('in_progress', 'waiting')`,
    ).run(
      outcome.status,
      outcome.output ?? null,
      outcome.waiting_reason ?? null,
      timestamp(),
      id,
      workerId,
    );
    return Number(result.changes) === 1;
  }

  /** Parks a running task while it waits on someone (an approval); the worker keeps it. */
  park(id: number, workerId: string, reason: string): void {
    this.#sql(
      "UPDATE tasks SET status = 'waiting', waiting_reason = ?, updated_at = ? WHERE id = ? AND claimed_by = ? AND status = 'in_progress'",
    ).run(reason, timestamp(), id, workerId);
  }

  /** Takes a parked task back up once it has its answer. */
  unpark(id: number, workerId: string): void {
    this.#sql(
      "UPDATE tasks SET status = 'in_progress', waiting_reason = NULL, updated_at = ? WHERE id = ? AND claimed_by = ? AND status = 'waiting'",
    ).run(timestamp(), id, workerId);
  }

  /** Cancels a task that has not finished. */
  cancel(id: number): Task {
    const task = this.get(id);
    if (!task) throw new TaskError("not_found", `There is no task ${id}`);
    if (FINISHED.includes(task.status)) {
      throw new TaskError("conflict", `Task ${id} is ${task.status} already`);
    }
    this.#sql(
      "UPDATE tasks SET status = 'cancelled', claimed_by = NULL, claimed_at = NULL, updated_at = ? WHERE id = ?",
    ).run(timestamp(), id);
    return this.get(id)!;
  }

  /**
   * Puts a task back in the queue: one waiting with no worker (it called
   * wait_task), or a failed or cancelled one to try again.
   */
  resume(id: number, note?: string): Task {
    const task = this.get(id);
    if (!task) throw new TaskError("not_found", `There is no task ${id}`);
    if (task.status === "pending" || task.status === "in_progress" || task.claimed_by) {
      throw new TaskError(
        "conflict",
        `Task ${id} is ${task.status}; only a parked, failed or cancelled task resumes`,
      );
    }
    if (task.status === "complete") {
      throw new TaskError("conflict", `Task ${id} is complete already`);
    }
    const prompt = note ? `${task.prompt}\n\nNote on resuming: ${note}` : task.prompt;
    this.#sql(
      "UPDATE tasks SET status = 'pending', waiting_reason = NULL, prompt = ?, updated_at = ? WHERE id = ?",
    ).run(prompt, timestamp(), id);
    return this.get(id)!;
  }

  /**
   * Resets claims whose worker process is gone or that have run longer than
   * `staleMs`: the task goes back to pending. Returns the ids reset.
   */
  resetStale(staleMs: number, now = new Date()): number[] {
    const rows = this.#sql<{ id: number; claimed_by: string; claimed_at: string }>(
      "SELECT id, claimed_by, claimed_at FROM tasks WHERE status IN ('in_progress', 'waiting') AND claimed_by IS NOT NULL",
    ).all();
    const reset: number[] = [];
    for (const row of rows) {
      const stale = now.getTime() - new Date(row.claimed_at).getTime() > staleMs;
      const live = isLiveOwner(row.claimed_by);
      if (live && !stale) continue;
      const result = this.#sql(
        `UPDATE tasks SET status = 'pending', claimed_by = NULL, claimed_at = NULL,
                waiting_reason = ?, updated_at = ?
          WHERE id = ? AND claimed_by = ?`,
      ).run(
        live
          ? "reset: its run took longer than three times the maximum"
          : "reset: its worker stopped",
        timestamp(),
        row.id,
        row.claimed_by,
      );
      if (Number(result.changes) === 1) reset.push(row.id);
    }
    return reset;
  }

  /** Fails pending tasks blocked by a task that failed or was cancelled: they can never run. */
  failBlocked(): number {
    const result = this.#sql(
      `UPDATE tasks SET status = 'failed', updated_at = ?,
              output = 'blocked by a task that failed or was cancelled'
        WHERE status = 'pending' AND EXISTS (
          SELECT 1 FROM json_each(tasks.blocked_by) b JOIN tasks d ON d.id = b.value
           WHERE d.status IN ('failed', 'cancelled'))`,
    ).run(timestamp());
    return Number(result.changes);
  }

  /** Deletes every task (for `hob reset tasks`); returns how many. */
  clear(): number {
    return Number(this.#sql("DELETE FROM tasks").run().changes);
  }

  // Workers

  /** Registers a worker, or notes that it is still alive and what it holds. */
  heartbeat(worker: { id: string; kind: string; task_id?: number | null }): void {
    const now = timestamp();
    this.#sql(
      `INSERT INTO workers (id, pid, kind, started_at, seen_at, task_id) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, task_id = excluded.task_id`,
    ).run(worker.id, Deno.pid, worker.kind, now, now, worker.task_id ?? null);
  }

  /** Removes a worker that stops. */
  unregister(id: string): void {
    this.#sql("DELETE FROM workers WHERE id = ?").run(id);
  }

  /** Registered workers, with whether their process is alive; rows of dead processes are removed. */
  workers(): WorkerRow[] {
    const rows = this.#sql<Omit<WorkerRow, "alive">>(
      "SELECT id, pid, kind, started_at, seen_at, task_id FROM workers ORDER BY started_at",
    ).all();
    const alive: WorkerRow[] = [];
    for (const row of rows) {
      if (isLiveOwner(row.id)) alive.push({ ...row, alive: true });
      else this.unregister(row.id);
    }
    return alive;
  }
}

function toTask(row: TaskRow): Task {
  return { ...row, blocked_by: JSON.parse(row.blocked_by) };
}
