/**
 * The status action: one view of the whole assistant — the server, the model
 * and its provider, jobs, heartbeat, tasks and workers, notifications, memory,
 * the database, the MCP servers, the channels, voice and backups — for `hob status` and `GET /api/status`.
 * It reads jobs, tasks and notifications through the app's own actions and
 * the rest through {@linkcode StatusProbes} it is handed; it knows no
 * provider, no server and no wire format.
 */

import { z } from "zod";
import type { IndexStats } from "../memory/search_index.ts";
import type { McpServerStatus } from "../mcp/client.ts";
import type { MediaCapabilities } from "../media/capabilities.ts";
import type { ChannelState } from "./channels.ts";
import type { HeartbeatState } from "../scheduler/heartbeat.ts";
import type { JobView } from "../store/jobs.ts";
import type { TaskStatus, WorkerRow } from "../store/tasks.ts";
import { checkInput } from "./errors.ts";
import type { NotificationActions } from "./notifications.ts";
import type { ScheduleActions } from "./schedules.ts";
import type { TaskActions } from "./tasks.ts";
import type { BackupStatus } from "./backups.ts";
import { compareText } from "../core/text_order.ts";

/** A model in use and whether its provider answers. */
export interface ModelStatus {
  id: string;
  provider: string;
  reachable: boolean;
  error?: string;
}

/** The status of one hob. */
export interface HobStatus {
  home: string;
  server: { url: string; running: boolean; version?: string };
  model: ModelStatus;
  heartbeat_model?: ModelStatus;
  jobs: {
    total: number;
    enabled: number;
    next: { name: string; at: string } | null;
    failing: { name: string; at: string; error: string }[];
    missed: { name: string; runs: number; last_noticed: string | null }[];
    list: JobView[];
  };
  heartbeat: HeartbeatState & { enabled: boolean; interval_minutes: number };
  tasks: {
    counts: Record<TaskStatus, number>;
    held: { id: number; title: string; status: TaskStatus; worker: string; since: string | null }[];
  };
  workers: WorkerRow[];
  notifications: { unread: number };
  memory: IndexStats;
  database: { path: string; bytes: number };
  /** The MCP servers of hob.yaml and how each is doing. */
  mcp: McpServerStatus[];
  /** The channels of hob.yaml and how each is doing (`stopped` unless `hob serve` runs them). */
  channels: ChannelState[];
  /** What hob can hear and say, and do with video, on this machine — or why not. */
  voice: MediaCapabilities;
  /** Backups: the schedule, the last one tried and the last one made. */
  backup: BackupStatus;
}

/** Most tasks looked through for the ones a worker holds: more than any queue has in flight. */
const MAX_HELD_SCAN = 1_000;

/**
 * A status request. `server_running` is known by the server itself (the API
 * says true); left out, the server is asked whether it runs.
 */
export const statusInput = z.strictObject({ server_running: z.boolean().optional() });

export type StatusInput = z.input<typeof statusInput>;

/** What the status reads beyond the app's own actions (the runtime provides them). */
export interface StatusProbes {
  home: string;
  /** Where a running `hob serve` listens, or where it would. */
  serverUrl(): string;
  /** Whether a hob answers at `url`, and its version. */
  probeServer(url: string): Promise<{ running: boolean; version?: string }>;
  /** The model (and the heartbeat's, when it has its own) and whether each provider answers. */
  models(): Promise<Pick<HobStatus, "model" | "heartbeat_model">>;
  /** The MCP servers, once each has had its chance to connect. */
  mcp(): Promise<McpServerStatus[]>;
  /** The configured channels' state. */
  channels(): ChannelState[];
  heartbeat(): HobStatus["heartbeat"];
  /** Live task workers. */
  workers(): WorkerRow[];
  /** The memory index's counts, as they are now. */
  memory(): IndexStats;
  database(): Promise<HobStatus["database"]>;
  /** The report with every secret of the configuration taken out (errors may quote one). */
  redact(report: HobStatus): Promise<HobStatus>;
}

/** What the status action works on. */
export interface StatusActionsDeps {
  probes: StatusProbes;
  schedules: ScheduleActions;
  tasks: TaskActions;
  notifications: NotificationActions;
  /** The speech and video capabilities (the voice actions'). */
  voice(): MediaCapabilities;
  /** The backups' status (the backup action's). */
  backups(): BackupStatus;
  /** SQLite's integrity check of hob.db: "ok", or what it found. */
  integrity(): string;
}

/** The status action. */
export interface StatusActions {
  /** The whole assistant's status; no secret of the configuration appears in it. */
  collect(input?: StatusInput): Promise<HobStatus>;
  /** SQLite's integrity check of hob.db (`hob doctor`): "ok", or what it found. */
  integrity(): string;
}

/**
 * The status action over the app's actions and the runtime's probes.
 *
 * @example
 * ```ts
 * const status = createStatusActions({ probes, schedules, tasks, notifications });
 * (await status.collect({ server_running: true })).tasks.counts.pending; // 3
 * ```
 */
export function createStatusActions(deps: StatusActionsDeps): StatusActions {
  const { probes, schedules, tasks, notifications } = deps;
  return {
    integrity: () => deps.integrity(),
    async collect(input = {}) {
      const { server_running } = checkInput(statusInput, input);
      const url = probes.serverUrl();
      const [server, models, mcp, database] = await Promise.all([
        server_running === undefined
          ? probes.probeServer(url)
          : Promise.resolve({ running: server_running }),
        probes.models(),
        probes.mcp(),
        probes.database(),
      ]);
      return await probes.redact({
        home: probes.home,
        server: { url, ...server },
        ...models,
        jobs: jobSummary(schedules.list()),
        heartbeat: probes.heartbeat(),
        tasks: { counts: tasks.counts(), held: heldTasks(tasks) },
        workers: probes.workers(),
        notifications: { unread: notifications.unreadCount() },
        memory: probes.memory(),
        database,
        mcp,
        channels: probes.channels(),
        voice: deps.voice(),
        backup: deps.backups(),
      });
    },
  };
}

/** The jobs: how many, the next to run, the failing ones and the ones that missed runs. */
function jobSummary(list: JobView[]): HobStatus["jobs"] {
  const next = list.filter((job) => job.enabled && job.next_run)
    .sort((a, b) => compareText(a.next_run!, b.next_run!))[0];
  return {
    total: list.length,
    enabled: list.filter((job) => job.enabled).length,
    next: next ? { name: next.name, at: next.next_run! } : null,
    failing: list.filter((job) => job.last_status === "error" && job.last_failure).map((job) => ({
      name: job.name,
      at: job.last_failure!.at,
      error: job.last_failure!.error,
    })),
    missed: list.filter((job) => job.missed_runs > 0).map((job) => ({
      name: job.name,
      runs: job.missed_runs,
      last_noticed: job.last_missed_at,
    })),
    list,
  };
}

/** The tasks a worker holds now. */
function heldTasks(tasks: TaskActions): HobStatus["tasks"]["held"] {
  return tasks.list({ limit: MAX_HELD_SCAN }).filter((task) => task.claimed_by).map((task) => ({
    id: task.id,
    title: task.title,
    status: task.status,
    worker: task.claimed_by!,
    since: task.claimed_at,
  }));
}
