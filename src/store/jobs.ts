/**
 * Scheduled jobs and their run log in SQLite — the scheduler's truth, so a
 * restart loses nothing. Claiming a job for a run is one conditional UPDATE,
 * so a job never runs twice at once, even with two processes on one hob.db.
 */

import { transaction, withWriteLock } from "./transaction.ts";
import { type Sql, statements } from "./statements.ts";
import type { DatabaseSync } from "node:sqlite";
import { isLiveOwner, PROCESS_OWNER } from "./owner.ts";
import { timestamp } from "./timestamp.ts";

/** What happens to runs that fell due while hob was not running. */
export type MissedPolicy = "run_once" | "skip";

/** A job as stored. */
export interface Job {
  id: number;
  name: string;
  prompt: string;
  schedule: string;
  timezone: string;
  enabled: boolean;
  missed_policy: MissedPolicy;
  model: string | null;
  conversation_id: string | null;
  next_run: string | null;
  last_run: string | null;
  anchor: string;
  running_since: string | null;
  /** Set when a tainted turn scheduled it: the untrusted content its prompt may come from. */
  taint: string | null;
  /** The channel each run's result is sent to the owner on as well, or null. */
  deliver: string | null;
  created_at: string;
  updated_at: string;
}

/** How a run came about. */
export type RunTrigger = "schedule" | "manual" | "catch_up";
/** How a run ended. */
export type RunStatus = "running" | "ok" | "error" | "missed" | "skipped" | "interrupted";

/** One line of a job's run log. */
export interface JobRun {
  id: number;
  job_id: number;
  trigger: RunTrigger;
  status: RunStatus;
  due_at: string | null;
  started_at: string;
  finished_at: string | null;
  result: string;
  error: string | null;
  missed_count: number;
  input_tokens: number | null;
  output_tokens: number | null;
  conversation_id: string | null;
}

/** A job with what its run log says, as listings show it. */
export interface JobView extends Job {
  last_status: RunStatus | null;
  last_result: string | null;
  last_failure: { at: string; error: string } | null;
  /** Runs that fell due while hob was not running, in all. */
  missed_runs: number;
  last_missed_at: string | null;
}

/** The fields of a new job. */
export interface NewJob {
  name: string;
  prompt: string;
  schedule: string;
  timezone: string;
  enabled?: boolean;
  missed_policy?: MissedPolicy;
  model?: string | null;
  deliver?: string | null;
  next_run: string | null;
  anchor: string;
  /** The scheduling turn had read untrusted content: from where. Every run starts tainted. */
  taint?: string | null;
}

/** Raised when a job cannot be stored; `code` says why. */
export class JobError extends Error {
  override name = "JobError";
  readonly code: "duplicate" | "not_found" | "busy";
  constructor(code: JobError["code"], message: string) {
    super(message);
    this.code = code;
  }
}

/** A job's row: `enabled` is SQLite's 0 or 1. */
interface JobRow extends Omit<Job, "enabled"> {
  enabled: number;
}

const COLUMNS =
  "id, name, prompt, schedule, timezone, enabled, missed_policy, model, conversation_id, next_run, last_run, anchor, running_since, taint, deliver, created_at, updated_at";

/**
 * The job store.
 *
 * @example
 * ```ts
 * const jobs = new SqliteJobs(db);
 * jobs.due(new Date()).forEach((job) => …);
 * ```
 */
export class SqliteJobs {
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

  create(job: NewJob): Job {
    const now = timestamp();
    try {
      const result = this.#sql(
        `INSERT INTO jobs (name, prompt, schedule, timezone, enabled, missed_policy, model, next_run, anchor, taint,
                           deliver, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        job.name,
        job.prompt,
        job.schedule,
        job.timezone,
        job.enabled === false ? 0 : 1,
        job.missed_policy ?? "run_once",
        job.model ?? null,
        job.next_run,
        job.anchor,
        job.taint ?? null,
        job.deliver ?? null,
        now,
        now,
      );
      return this.get(Number(result.lastInsertRowid))!;
    } catch (error) {
      if (/UNIQUE/.test((error as Error).message)) {
        throw new JobError("duplicate", `A job named '${job.name}' exists already`);
      }
      throw error;
    }
  }

  /** A job by id, or by name when given a string that is not a number. */
  get(idOrName: number | string): Job | undefined {
    const byId = typeof idOrName === "number" || /^\d+$/.test(idOrName);
    const row = this.#sql<JobRow>(`SELECT ${COLUMNS} FROM jobs WHERE ${byId ? "id" : "name"} = ?`)
      .get(byId ? Number(idOrName) : idOrName);
    return row ? toJob(row) : undefined;
  }

  /** Every job as the owner sees it, by name: what every way in lists. */
  views(): JobView[] {
    return this.list().map((job) => this.view(job));
  }

  list(): Job[] {
    return this.#sql<JobRow>(`SELECT ${COLUMNS} FROM jobs ORDER BY name`).all().map(toJob);
  }

  /** Changes the given fields. */
  update(
    id: number,
    patch: Partial<
      Pick<
        Job,
        | "name"
        | "prompt"
        | "schedule"
        | "timezone"
        | "enabled"
        | "missed_policy"
        | "model"
        | "deliver"
        | "next_run"
        | "anchor"
        | "conversation_id"
        | "last_run"
      >
    >,
  ): Job {
    const sets: string[] = [];
    const values: (string | number | null)[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      sets.push(`${key} = ?`);
      values.push(typeof value === "boolean" ? (value ? 1 : 0) : value as string | number | null);
    }
    if (sets.length > 0) {
      try {
        this.#sql(`UPDATE jobs SET ${sets.join(", ")}, updated_at = ? WHERE id = ?`).run(
          ...values,
          timestamp(),
          id,
        );
      } catch (error) {
        if (/UNIQUE/.test((error as Error).message)) {
          throw new JobError("duplicate", `A job named '${patch.name}' exists already`);
        }
        throw error;
      }
    }
    const job = this.get(id);
    if (!job) throw new JobError("not_found", `No job ${id}`);
    return job;
  }

  delete(id: number): boolean {
    return Number(this.#sql("DELETE FROM jobs WHERE id = ?").run(id).changes) > 0;
  }

  /** Enabled jobs whose next run is due at `now` (running ones included: their occurrence is recorded as skipped). */
  due(now: Date): Job[] {
    return this.#sql<JobRow>(
      `SELECT ${COLUMNS} FROM jobs WHERE enabled = 1 AND next_run IS NOT NULL AND next_run <= ? ORDER BY next_run`,
    ).all(now.toISOString()).map(toJob);
  }

  /** The earliest next run of any enabled job. */
  earliest(): Date | null {
    const row = this.#sql<{ at: string | null }>(
      "SELECT MIN(next_run) AS at FROM jobs WHERE enabled = 1 AND next_run IS NOT NULL",
    ).one();
    return row.at ? new Date(row.at) : null;
  }

  /** Marks a job as running in this process; false when it is running already (anywhere). */
  claim(id: number): boolean {
    const result = this.#sql(
      "UPDATE jobs SET running_owner = ?, running_since = ? WHERE id = ? AND running_owner IS NULL",
    ).run(PROCESS_OWNER, timestamp(), id);
    return Number(result.changes) === 1;
  }

  release(id: number): void {
    this.#sql("UPDATE jobs SET running_owner = NULL, running_since = NULL WHERE id = ?").run(id);
  }

  /**
   * Releases jobs left running by a process that is gone, marking their open
   * runs interrupted. Returns the runs it marked (the scheduler applies each
   * job's missed-run policy to them).
   */
  recoverInterrupted(): { job_id: number; run_id: number; trigger: RunTrigger }[] {
    const rows = this.#sql<{ id: number; running_owner: string }>(
      "SELECT id, running_owner FROM jobs WHERE running_owner IS NOT NULL",
    ).all();
    const recovered: { job_id: number; run_id: number; trigger: RunTrigger }[] = [];
    for (const row of rows) {
      if (isLiveOwner(row.running_owner)) continue;
      // One transaction: a crash here must not leave a released job with a run still "running".
      transaction(this.#db, () => {
        const owned = this.#sql<{ running_owner: string | null }>(
          "SELECT running_owner FROM jobs WHERE id = ?",
        ).get(row.id);
        if (owned?.running_owner === row.running_owner) {
          const open = this.#sql<{ id: number; trigger: RunTrigger }>(
            "SELECT id, trigger FROM job_runs WHERE job_id = ? AND status = 'running' ORDER BY id",
          ).all(row.id);
          this.#sql(
            "UPDATE job_runs SET status = 'interrupted', finished_at = ?, error = 'hob stopped during the run' WHERE job_id = ? AND status = 'running'",
          ).run(timestamp(), row.id);
          this.release(row.id);
          for (const run of open) {
            recovered.push({ job_id: row.id, run_id: run.id, trigger: run.trigger });
          }
        }
      });
    }
    return recovered;
  }

  startRun(
    run: {
      job_id: number;
      trigger: RunTrigger;
      due_at: string | null;
      conversation_id: string | null;
    },
  ): number {
    return Number(
      this.#sql(
        "INSERT INTO job_runs (job_id, trigger, status, due_at, started_at, conversation_id) VALUES (?, ?, 'running', ?, ?, ?)",
      ).run(run.job_id, run.trigger, run.due_at, timestamp(), run.conversation_id).lastInsertRowid,
    );
  }

  finishRun(
    id: number,
    outcome: {
      status: RunStatus;
      result?: string;
      error?: string | null;
      input_tokens?: number | null;
      output_tokens?: number | null;
      conversation_id?: string | null;
    },
  ): void {
    this.#sql(
      `UPDATE job_runs SET status = ?, finished_at = ?, result = ?, error = ?, input_tokens = ?, output_tokens = ?,
              conversation_id = COALESCE(?, conversation_id) WHERE id = ?`,
    ).run(
      outcome.status,
      timestamp(),
      outcome.result ?? "",
      outcome.error ?? null,
      outcome.input_tokens ?? null,
      outcome.output_tokens ?? null,
      outcome.conversation_id ?? null,
      id,
    );
  }

  /** Records runs that did not happen (missed while hob was down, or skipped), in one line. */
  recordNotRun(
    jobId: number,
    status: "missed" | "skipped",
    detail: { due_at: string | null; missed_count?: number; result: string },
  ): number {
    const now = timestamp();
    return Number(
      this.#sql(
        `INSERT INTO job_runs (job_id, trigger, status, due_at, started_at, finished_at, result, missed_count)
         VALUES (?, 'schedule', ?, ?, ?, ?, ?, ?)`,
      ).run(jobId, status, detail.due_at, now, now, detail.result, detail.missed_count ?? 0)
        .lastInsertRowid,
    );
  }

  runs(jobId: number, limit = 50): JobRun[] {
    return this.#sql<JobRun>("SELECT * FROM job_runs WHERE job_id = ? ORDER BY id DESC LIMIT ?")
      .all(jobId, limit).map((row) => ({ ...row }));
  }

  /** A job with what its run log says: the last run, the last failure, runs missed. */
  view(job: Job): JobView {
    const last = this.lastRun(job.id);
    const failure = this.#sql<{ started_at: string; error: string | null }>(
      "SELECT started_at, error FROM job_runs WHERE job_id = ? AND status IN ('error', 'interrupted') ORDER BY id DESC LIMIT 1",
    ).get(job.id);
    const missed = this.#sql<{ n: number; at: string | null }>(
      "SELECT COALESCE(SUM(missed_count), 0) AS n, MAX(started_at) AS at FROM job_runs WHERE job_id = ? AND status = 'missed'",
    ).one(job.id);
    return {
      ...job,
      last_status: last?.status ?? null,
      last_result: last?.result ?? null,
      last_failure: failure ? { at: failure.started_at, error: failure.error ?? "" } : null,
      missed_runs: Number(missed.n),
      last_missed_at: missed.at,
    };
  }

  /** Deletes every job and its log (for `hob reset schedules`); returns how many. */
  clear(): number {
    return Number(this.#sql("DELETE FROM jobs").run().changes);
  }

  /** The newest line of a job's run log. */
  lastRun(jobId: number): JobRun | undefined {
    return this.runs(jobId, 1)[0];
  }
}

function toJob(row: JobRow): Job {
  return { ...row, enabled: row.enabled === 1 };
}
