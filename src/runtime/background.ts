/**
 * The work hob does on its own: scheduled jobs, the heartbeat, background
 * tasks and the notifications they leave. Built with every runtime (so the
 * CLI and API can list and change jobs and tasks) but started only by
 * `hob serve` and `hob worker`.
 */

import type { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { durationMs } from "../config/duration.ts";
import type { HobConfig } from "../config/schema.ts";
import type { TurnInput } from "../core/agent.ts";
import type { ToolRegistryPort } from "../core/ports.ts";
import { collectReply } from "../core/reply.ts";
import type { AgentEvent } from "../core/types.ts";
import { BackupSchedule } from "../scheduler/backups.ts";
import { Heartbeat, type HeartbeatState, parseActiveHours } from "../scheduler/heartbeat.ts";
import { type JobOutcome, type MissedRuns, Scheduler } from "../scheduler/scheduler.ts";
import type { SqliteConversationStore } from "../store/conversations.ts";
import { type Job, SqliteJobs } from "../store/jobs.ts";
import { SqliteNotifications } from "../store/notifications.ts";
import { SqliteTasks } from "../store/tasks.ts";
import { readKv, SqliteKv, writeKv } from "../store/kv.ts";
import { TaskWorker } from "../tasks/worker.ts";
import { type Memory, readOrEmpty } from "../memory/memory.ts";
import { budgetPause } from "../app/budgets.ts";
import type { BackupActions } from "../app/backups.ts";
import { costOf } from "../app/prices.ts";
import type { SqliteModelCalls } from "../store/model_calls.ts";

/** What the background work needs from the runtime. */
export interface BackgroundDeps {
  home: string;
  config: HobConfig;
  db: DatabaseSync;
  store: SqliteConversationStore;
  /** The model call log, which the budgets read. */
  calls: SqliteModelCalls;
  memory: Memory;
  turn(input: TurnInput, tools?: ToolRegistryPort): AsyncGenerator<AgentEvent>;
  tools: ToolRegistryPort;
  now: () => Date;
  /**
   * Sends text to the owner on a channel: a job's result (`deliver`), and
   * every notification when hob.yaml names `channels.notify`. Throws when it
   * cannot; the background logs it and goes on.
   */
  deliver?(channel: string, text: string): Promise<void>;
  /** The app's backup action, which the schedule of `backup.every` calls. */
  backups?(): BackupActions;
}

/** Scheduled jobs, heartbeat, tasks and notifications of one runtime. */
export interface Background {
  jobs: SqliteJobs;
  scheduler: Scheduler;
  heartbeat: Heartbeat;
  /** The backup schedule, when hob.yaml sets `backup.every`. */
  backups: BackupSchedule | undefined;
  tasks: SqliteTasks;
  notifications: SqliteNotifications;
  /** A task worker of this process (`kind`: serve or worker). */
  worker(kind: string): TaskWorker;
  /**
   * Starts the scheduler (catching up missed runs), the heartbeat and
   * `workers` task workers, as the config allows. Returns what was started.
   */
  start(options?: { workers?: number }): Promise<BackgroundStart>;
  stop(): Promise<void>;
}

/** What {@linkcode Background.start} started. */
export interface BackgroundStart {
  scheduler: boolean;
  heartbeat: boolean;
  /** Whether scheduled backups run (`backup.every`). */
  backups: boolean;
  workers: number;
  /** Jobs with runs missed while hob was down or cut off by a crash, and what was done. */
  missed: MissedRuns[];
}

const HEARTBEAT_KEY = "heartbeat";

/**
 * Builds the background work of a runtime; nothing runs until `start`.
 *
 * @example
 * ```ts
 * const background = createBackground({ home, config, db, store, memory, turn, tools, now });
 * await background.start();
 * ```
 */
export function createBackground(deps: BackgroundDeps): Background {
  const { config, db, store } = deps;
  const jobs = new SqliteJobs(db);
  const tasks = new SqliteTasks(db);
  const notifications = new SqliteNotifications(db);
  const stopping = new AbortController();
  // A notification is stored for the page and the API, and sent where hob.yaml says.
  const notify = (notification: { kind: string; title: string; body: string }) => {
    notifications.write(() => notifications.add(notification)).catch((error) => {
      console.error(`hob: a notification could not be stored: ${(error as Error).message}`);
    });
    const channel = config.channels.notify;
    if (channel) deliverTo(deps, channel, `**${notification.title}**\n\n${notification.body}`);
  };
  const loops: Promise<unknown>[] = [];
  const gates = budgetGates(deps, jobs, notify);

  const scheduler = new Scheduler({
    jobs,
    now: deps.now,
    defaultTimezone: config.scheduler.timezone,
    run: (job, signal) => runJob(deps, jobs, job, signal),
    admit: gates.job,
  });

  const heartbeat = heartbeatOf(deps, notify, gates.heartbeat);
  const backups = backupSchedule(deps, notify);

  const worker = (kind: string) =>
    new TaskWorker(kind, {
      tasks,
      turn: (input, tools) => deps.turn(input, tools),
      tools: deps.tools,
      conversations: store,
      notify,
      maxRunMs: config.tasks.max_run_minutes * 60_000,
    });

  let started = false;
  return {
    jobs,
    scheduler,
    heartbeat,
    backups,
    tasks,
    notifications,
    worker,
    async start(options = {}) {
      const result: BackgroundStart = {
        scheduler: false,
        heartbeat: false,
        backups: false,
        workers: 0,
        missed: [],
      };
      if (started) return result;
      started = true;
      if (config.scheduler.enabled) {
        result.missed = await scheduler.start();
        result.scheduler = true;
      }
      if (config.heartbeat.enabled) {
        heartbeat.start();
        result.heartbeat = true;
      }
      if (backups) {
        backups.start();
        result.backups = true;
      }
      const count = options.workers ?? config.tasks.workers;
      for (let i = 0; i < count; i++) {
        loops.push(
          worker("serve").loop(stopping.signal).catch((error) => {
            console.error(`hob: a task worker stopped: ${(error as Error).message}`);
          }),
        );
      }
      result.workers = count;
      return result;
    },
    async stop() {
      stopping.abort();
      backups?.stop();
      await Promise.all([scheduler.stop(), heartbeat.stop(), ...loops]);
    },
  };
}

/** The heartbeat of hob.yaml's settings, its state in the kv table. */
function heartbeatOf(
  deps: BackgroundDeps,
  notify: (notification: { kind: string; title: string; body: string }) => void,
  admit: (state: HeartbeatState) => string | null,
): Heartbeat {
  const { config, db, store } = deps;
  return new Heartbeat({
    intervalMs: config.heartbeat.interval_minutes * 60_000,
    activeHours: config.heartbeat.active_hours
      ? parseActiveHours(config.heartbeat.active_hours)
      : null,
    timezone: config.heartbeat.timezone,
    model: config.heartbeat.model ?? null,
  }, {
    turn: (input) => deps.turn(input),
    conversations: store,
    checklist: () => readOrEmpty(join(deps.home, "identity", "HEARTBEAT.md")),
    logNote: (text, heading, from) =>
      deps.memory.logNote(text, { author: "job", via: "heartbeat", ...from }, heading),
    notify,
    loadState: () => readKv<HeartbeatState>(db, HEARTBEAT_KEY),
    saveState: (state) => store.write(() => writeKv(db, HEARTBEAT_KEY, state)),
    now: deps.now,
    admit,
    costOf: (conversationId) => deps.calls.conversationCost(conversationId),
  });
}

/** The backup schedule of `backup.every`, telling the owner of a backup that failed; none when unset. */
function backupSchedule(
  deps: BackgroundDeps,
  notify: (notification: { kind: string; title: string; body: string }) => void,
): BackupSchedule | undefined {
  const every = deps.config.backup.every;
  const { backups } = deps;
  if (!every || !backups) return undefined;
  return new BackupSchedule({
    everyMs: durationMs(every)!,
    lastTried: () => backups().status().last?.at ?? null,
    now: deps.now,
    run: async () => {
      try {
        await backups().make({}, { scheduled: true });
      } catch (error) {
        notify({ kind: "backup", title: "Backup failed", body: (error as Error).message });
        throw error;
      }
    },
  });
}

/** Sends text to the owner on a channel, logging (not throwing) when it cannot. */
function deliverTo(deps: BackgroundDeps, channel: string, text: string): void {
  if (!deps.deliver) return;
  deps.deliver(channel, text).catch((error) => {
    console.error(`hob: could not send to ${channel}: ${(error as Error).message}`);
  });
}

/** The budget checks of scheduled runs: a run is expected to cost what its last one did. */
function budgetGates(
  deps: BackgroundDeps,
  jobs: SqliteJobs,
  notify: (notification: { kind: string; title: string; body: string }) => void,
) {
  const budgets = {
    kv: new SqliteKv(deps.db),
    calls: deps.calls,
    budgets: deps.config.usage.budgets,
    now: deps.now,
    notify,
  };
  return {
    job: (job: Job) => budgetPause(budgets, { job: job.name }, lastRunCost(deps, jobs, job)),
    heartbeat: (state: HeartbeatState) =>
      budgetPause(
        budgets,
        { heartbeat: true },
        state.last_conversation_id ? deps.calls.conversationCost(state.last_conversation_id) : 0,
      ),
  };
}

/**
 * What a job's last run cost, priced from its tokens at the job's model (as
 * if none were cached): what its next run is expected to cost.
 */
function lastRunCost(deps: BackgroundDeps, jobs: SqliteJobs, job: Job): number {
  const last = jobs.runs(job.id, 20).find((run) => run.input_tokens !== null);
  if (!last) return 0;
  return costOf(job.model ?? deps.config.model, {
    input_tokens: last.input_tokens ?? 0,
    output_tokens: last.output_tokens ?? 0,
  }, deps.config.usage.prices);
}

/** Runs a job's prompt in the job's own conversation, without anyone watching. */
async function runJob(
  deps: BackgroundDeps,
  jobs: SqliteJobs,
  job: Job,
  signal: AbortSignal,
): Promise<JobOutcome> {
  const existing = job.conversation_id
    ? deps.store.getConversation(job.conversation_id)
    : undefined;
  const conversation = existing ?? await jobs.write(() => {
    const created = deps.store.createConversation({
      title: `Job: ${job.name}`,
      kind: "job",
      model: job.model,
    });
    // Named at once, so the first run's model calls are counted as the job's.
    jobs.update(job.id, { conversation_id: created.id });
    return created;
  });
  const reply = await collectReply(deps.turn({
    message: `[Scheduled job "${job.name}" (${job.schedule}), ${deps.now().toISOString()}. ` +
      `No one is watching: do the work and answer with the result.]\n\n${job.prompt}`,
    conversation_id: conversation.id,
    model: job.model ?? undefined,
    signal,
    // A job a tainted turn scheduled runs tainted: its prompt may carry an injection.
    tainted: job.taint ?? undefined,
  }));
  const failed = reply.status === "error" || reply.status === "interrupted";
  if (job.deliver) {
    deliverTo(
      deps,
      job.deliver,
      failed
        ? `**${job.name}** failed: ${reply.error?.message ?? reply.status}`
        : `**${job.name}**\n\n${reply.content.trim() || "(no answer)"}`,
    );
  }
  return {
    ok: !failed,
    result: reply.content,
    error: failed ? reply.error?.message ?? reply.status : undefined,
    input_tokens: reply.usage.input_tokens,
    output_tokens: reply.usage.output_tokens,
    conversation_id: conversation.id,
  };
}
