/**
 * The scheduler: runs jobs when they fall due. SQLite holds every job's next
 * run, so nothing depends on timers surviving; `Deno.cron` wakes it every
 * minute and a precise timer wakes it for the next due job (sub-minute
 * `every` jobs included). At start, runs that fell due while hob was down are
 * recorded as `missed` and caught up once or skipped, as the job says — never
 * dropped silently. A job never overlaps itself. Its bookkeeping waits
 * (without blocking) while another program holds hob.db, so a run is logged
 * once the lock is released.
 */

import {
  type Job,
  JobError,
  type JobRun,
  type MissedPolicy,
  type RunTrigger,
  type SqliteJobs,
} from "../store/jobs.ts";
import { onMinute } from "./clock.ts";
import { nextRun, parseSchedule, runsBetween, ScheduleError } from "./schedule.ts";
import { defaultTimezone } from "./zones.ts";

/** What running a job produced. */
export interface JobOutcome {
  ok: boolean;
  result: string;
  error?: string;
  input_tokens?: number;
  output_tokens?: number;
  conversation_id?: string;
}

/** Runs one job's prompt through the agent. */
export type JobRunner = (job: Job, signal: AbortSignal) => Promise<JobOutcome>;

/** What the scheduler needs. */
export interface SchedulerOptions {
  jobs: SqliteJobs;
  run: JobRunner;
  now?: () => Date;
  /** The zone of schedules that name none; by default the machine's. */
  defaultTimezone?: string;
  /**
   * Arm timers and Deno.cron (off in tests that drive ticks by hand).
   * @default {true}
   */
  timers?: boolean;
  /**
   * Why a due run must not run now (a budget), or null. A run refused is
   * logged as skipped with the reason and the job waits for its next time;
   * runs the owner starts by hand are not asked about.
   */
  admit?: (job: Job) => string | null;
}

/** The fields for adding a job. */
export interface JobInput {
  name: string;
  prompt: string;
  schedule: string;
  timezone?: string;
  missed_policy?: MissedPolicy;
  model?: string | null;
  /** The channel each run's result goes to the owner on as well. */
  deliver?: string | null;
  enabled?: boolean;
  /** Scheduled by a tainted turn: the untrusted content its prompt may come from. */
  taint?: string | null;
}

/**
 * A job whose runs hob did not make, found at start: `missed` runs fell due
 * while it was down, and/or (`interrupted`) a run was cut off by a crash.
 */
export interface MissedRuns {
  job: string;
  missed: number;
  policy: MissedPolicy;
  /** A run of this job was going when hob died; the policy decides whether it runs again. */
  interrupted?: boolean;
}

/** Longest a precise timer waits; Deno.cron's minute tick is the backstop. */
const MAX_TIMER_MS = 60_000;
/** Longest job result kept in the run log. */
const RESULT_CHARS = 4_000;

/**
 * The scheduler of one runtime.
 *
 * @example
 * ```ts
 * const scheduler = new Scheduler({ jobs, run: (job, signal) => runJobTurn(job, signal) });
 * await scheduler.start();
 * ```
 */
export class Scheduler {
  readonly #jobs: SqliteJobs;
  readonly #run: JobRunner;
  readonly #now: () => Date;
  readonly #timers: boolean;
  /** The zone of jobs that name none; the machine's when unset, asked when a job needs it. */
  readonly #timezone: string | undefined;
  readonly #admit: (job: Job) => string | null;
  readonly #running = new Set<Promise<void>>();
  /** Jobs whose run is being started: its write may wait for hob.db's lock. */
  readonly #starting = new Set<number>();
  readonly #stop = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unsubscribe: (() => void) | undefined;
  #started = false;

  constructor(options: SchedulerOptions) {
    this.#jobs = options.jobs;
    this.#run = options.run;
    this.#now = options.now ?? (() => new Date());
    this.#timers = options.timers ?? true;
    this.#timezone = options.defaultTimezone;
    this.#admit = options.admit ?? (() => null);
  }

  /** Validates and stores a new job, with its first run computed. */
  add(input: JobInput): Job {
    const timezone = input.timezone ?? this.#timezone ?? defaultTimezone();
    const schedule = parseSchedule(input.schedule, timezone);
    const now = this.#now();
    const first = nextRun(schedule, now, now);
    if (!first) throw new ScheduleError(`'${input.schedule}' is in the past: it would never run`);
    const job = this.#jobs.create({
      name: input.name,
      prompt: input.prompt,
      schedule: input.schedule.trim(),
      timezone,
      missed_policy: input.missed_policy,
      model: input.model,
      deliver: input.deliver,
      enabled: input.enabled,
      next_run: first.toISOString(),
      anchor: now.toISOString(),
      taint: input.taint,
    });
    this.#arm();
    return job;
  }

  /** Changes a job; a new schedule or time zone recomputes its next run. */
  update(id: number, patch: Partial<JobInput>): Job {
    const job = this.#jobs.get(id);
    if (!job) throw new JobError("not_found", `No job ${id}`);
    const changes: Parameters<SqliteJobs["update"]>[1] = {
      name: patch.name,
      prompt: patch.prompt,
      missed_policy: patch.missed_policy,
      model: patch.model,
      deliver: patch.deliver,
      enabled: patch.enabled,
    };
    const scheduleText = patch.schedule ?? job.schedule;
    const timezone = patch.timezone ?? job.timezone;
    if (
      patch.schedule !== undefined || patch.timezone !== undefined ||
      (patch.enabled && !job.enabled)
    ) {
      const schedule = parseSchedule(scheduleText, timezone);
      const now = this.#now();
      changes.schedule = scheduleText.trim();
      changes.timezone = timezone;
      changes.anchor = now.toISOString();
      changes.next_run = nextRun(schedule, now, now)?.toISOString() ?? null;
    }
    const updated = this.#jobs.update(id, changes);
    this.#arm();
    return updated;
  }

  /**
   * Deals with runs missed while hob was down and runs a crash cut off, then
   * starts the clock. Returns the jobs that had either.
   */
  async start(): Promise<MissedRuns[]> {
    if (this.#started) return [];
    this.#started = true;
    const cutOff = await this.#jobs.write(() => this.#jobs.recoverInterrupted());
    const interrupted = new Set(
      cutOff.filter((run) => run.trigger !== "manual").map((run) => run.job_id),
    );
    const handled = await this.#catchUp(interrupted);
    if (this.#timers) {
      this.#unsubscribe = onMinute(() => this.tick());
      this.#arm();
    }
    return handled;
  }

  /** Runs every job that is due now; returns when they have all started. */
  tick(): Promise<void> {
    if (this.#stop.signal.aborted) return Promise.resolve();
    const now = this.#now();
    for (const job of this.#jobs.due(now)) {
      // Its start waits for the lock: it is due still, but already on its way.
      if (!this.#starting.has(job.id)) this.#launch(job, "schedule");
    }
    this.#arm();
    return Promise.resolve();
  }

  /** Runs a job now, outside its schedule. Resolves with the run when it has finished. */
  async runNow(id: number): Promise<JobRun> {
    const job = this.#jobs.get(id);
    if (!job) throw new JobError("not_found", `No job ${id}`);
    const runId = await this.#execute(job, "manual", false);
    if (runId === null) throw new JobError("busy", `Job '${job.name}' is running already`);
    return this.#jobs.runs(job.id, 50).find((run) => run.id === runId)!;
  }

  /** Waits for running jobs (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  /** Stops the clock and interrupts running jobs. */
  async stop(): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#timer);
    this.#unsubscribe?.();
    await this.idle();
  }

  /**
   * Missed runs: record them, then catch up once or skip, per job. A run a
   * crash cut off (`interrupted`: job ids) counts as missed: a `run_once` job
   * runs once more, a `skip` job waits for its next time.
   */
  async #catchUp(interrupted: ReadonlySet<number>): Promise<MissedRuns[]> {
    const now = this.#now();
    const handled: MissedRuns[] = [];
    const due = this.#jobs.due(now);
    for (const job of due) {
      const schedule = safeParse(job);
      if (!schedule) continue;
      const dueAt = new Date(job.next_run!);
      const cutOff = interrupted.has(job.id);
      // Allow a moment: a run due this very second is on time, not missed.
      if (now.getTime() - dueAt.getTime() < 1_000 && !cutOff) continue;
      const missed = runsBetween(schedule, new Date(dueAt.getTime()), now, new Date(job.anchor));
      const count = Math.max(1, missed);
      await this.#jobs.write(() => {
        this.#jobs.recordNotRun(job.id, "missed", {
          due_at: job.next_run,
          missed_count: count,
          result: `${count} run(s) fell due while hob was not running (first at ${job.next_run}); ${
            job.missed_policy === "run_once"
              ? "running once now"
              : "skipped, as the job's policy says"
          }`,
        });
        if (job.missed_policy === "run_once") return;
        const next = nextRun(schedule, now, new Date(job.anchor));
        this.#jobs.update(job.id, {
          next_run: next?.toISOString() ?? null,
          enabled: next !== null,
        });
      });
      handled.push({
        job: job.name,
        missed: count,
        policy: job.missed_policy,
        ...(cutOff ? { interrupted: true } : {}),
      });
      if (job.missed_policy === "run_once") this.#launch(job, "catch_up");
    }
    // Cut off, and not due again yet: the policy decides whether it runs again now.
    for (const id of interrupted) {
      if (due.some((job) => job.id === id)) continue;
      const job = this.#jobs.get(id);
      const schedule = job && safeParse(job);
      // A job switched off stays off; a once: job is off because its one run began.
      if (!job || !schedule || (!job.enabled && schedule.kind !== "once")) continue;
      handled.push({ job: job.name, missed: 0, policy: job.missed_policy, interrupted: true });
      if (job.missed_policy === "run_once") this.#launch(job, "catch_up");
    }
    return handled;
  }

  #launch(job: Job, trigger: RunTrigger): void {
    const run = this.#execute(job, trigger, true).then(() => {}, (error) => {
      console.error(`hob: job '${job.name}' could not run: ${(error as Error).message}`);
    });
    this.#running.add(run);
    run.finally(() => this.#running.delete(run));
  }

  /**
   * Runs a job once: claims it (no overlap), advances its next run from the
   * due time, runs the agent, logs the outcome — the bookkeeping before and
   * after the run each one write, which waits while another program holds
   * hob.db. Returns the run's id, or null when it was running already.
   */
  async #execute(job: Job, trigger: RunTrigger, advance: boolean): Promise<number | null> {
    const refused = trigger === "manual" ? null : this.#admit(job);
    const now = this.#now();
    this.#starting.add(job.id);
    let runId: number | null;
    try {
      runId = await this.#jobs.write(() => this.#begin(job, trigger, advance, refused));
    } finally {
      this.#starting.delete(job.id);
      this.#arm();
    }
    if (runId === null) return null;
    let finish: Parameters<SqliteJobs["finishRun"]>[1];
    let conversationId: string | undefined;
    try {
      const outcome = await this.#run(job, this.#stop.signal);
      conversationId = outcome.conversation_id;
      finish = {
        status: this.#stop.signal.aborted ? "interrupted" : outcome.ok ? "ok" : "error",
        result: outcome.result.slice(0, RESULT_CHARS),
        error: outcome.error ?? null,
        input_tokens: outcome.input_tokens ?? null,
        output_tokens: outcome.output_tokens ?? null,
        conversation_id: outcome.conversation_id ?? null,
      };
    } catch (error) {
      finish = { status: "error", error: (error as Error).message };
    }
    const ran = runId;
    await this.#jobs.write(() => {
      this.#jobs.finishRun(ran, finish);
      if (conversationId && conversationId !== job.conversation_id) {
        this.#jobs.update(job.id, { conversation_id: conversationId });
      }
      this.#jobs.update(job.id, { last_run: now.toISOString() });
      this.#jobs.release(job.id);
    }).finally(() => this.#arm());
    return runId;
  }

  /**
   * The bookkeeping before a run, in one write: a run refused (`refused`: why)
   * or overlapping its last one is logged as skipped, else the job is claimed
   * and its run started. Returns the run's id, or null when none starts.
   */
  #begin(job: Job, trigger: RunTrigger, advance: boolean, refused: string | null): number | null {
    const schedule = safeParse(job);
    if (refused) {
      this.#jobs.recordNotRun(job.id, "skipped", { due_at: job.next_run, result: refused });
      if (advance) this.#advance(job, schedule);
      return null;
    }
    if (!this.#jobs.claim(job.id)) {
      if (trigger === "schedule" && advance) {
        // Still running from its last time: this occurrence is skipped, and says so.
        this.#jobs.recordNotRun(job.id, "skipped", {
          due_at: job.next_run,
          result: "the previous run was still going; a job never overlaps itself",
        });
        this.#advance(job, schedule);
      }
      return null;
    }
    if (advance) this.#advance(job, schedule);
    return this.#jobs.startRun({
      job_id: job.id,
      trigger,
      due_at: trigger === "manual" ? null : job.next_run,
      conversation_id: job.conversation_id,
    });
  }

  /** Moves a job's next run past now; a once: job is disabled after its run. */
  #advance(job: Job, schedule: ReturnType<typeof safeParse>): void {
    if (!schedule) return;
    const now = this.#now();
    const next = nextRun(schedule, now, new Date(job.anchor));
    this.#jobs.update(job.id, {
      next_run: next?.toISOString() ?? null,
      ...(next === null ? { enabled: false } : {}),
    });
  }

  /**
   * Sets the precise timer for the earliest due job (at most a minute ahead).
   * Not while a start waits for the lock: its job is due still, and would
   * wake the timer at once, again and again; the start arms it when written.
   */
  #arm(): void {
    if (!this.#timers || !this.#started || this.#stop.signal.aborted) return;
    if (this.#starting.size > 0) return;
    clearTimeout(this.#timer);
    const earliest = this.#jobs.earliest();
    if (!earliest) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, earliest.getTime() - this.#now().getTime()));
    this.#timer = setTimeout(() => this.tick(), delay);
    Deno.unrefTimer(this.#timer as unknown as number);
  }
}

function safeParse(job: Job) {
  try {
    return parseSchedule(job.schedule, job.timezone);
  } catch {
    return null;
  }
}
