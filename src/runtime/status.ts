/**
 * One view of the whole assistant, for `hob status` and `GET /api/status`:
 * the server, the model and its provider, jobs, heartbeat, tasks and
 * workers, memory and the database.
 */

import { join } from "node:path";
import type { HeartbeatState } from "../scheduler/heartbeat.ts";
import { withTimeout } from "../core/timeout.ts";
import { isLiveOwner } from "../store/owner.ts";
import type { JobView } from "../store/jobs.ts";
import type { TaskStatus, WorkerRow } from "../store/tasks.ts";
import type { McpServerStatus } from "../mcp/client.ts";
import type { Runtime } from "./runtime.ts";
import { scrubSecrets, secretValues } from "../config/redact.ts";

/** The status of one hob. */
export interface HobStatus {
  home: string;
  server: { url: string; running: boolean; version?: string };
  model: { id: string; provider: string; reachable: boolean; error?: string };
  heartbeat_model?: { id: string; provider: string; reachable: boolean; error?: string };
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
  memory: {
    files: number;
    chunks: number;
    vectors: number;
    embedder: string | null;
    pending: number;
  };
  database: { path: string; bytes: number };
  /** The MCP servers of hob.yaml and how each is doing. */
  mcp: McpServerStatus[];
}

/** How long the status waits for a provider or the server to answer. */
const PROBE_TIMEOUT_MS = 3_000;

/**
 * Collects the status. `server` is where `hob serve` would listen; it is
 * asked whether it runs (the API's own status passes `running: true`). No
 * secret of the configuration appears in it, even where an error quotes one.
 *
 * @example
 * ```ts
 * const status = await collectStatus(runtime);
 * console.log(status.tasks.counts.pending);
 * ```
 */
export async function collectStatus(
  runtime: Runtime,
  options: { serverRunning?: boolean } = {},
): Promise<HobStatus> {
  const { config, background } = runtime;
  const { schedules, tasks, notifications } = runtime.app;
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  // A running `hob serve` says where it listens; otherwise, where it would.
  const recorded = runtime.serverRecord.read();
  const url = recorded && isLiveOwner(recorded.owner)
    ? recorded.url
    : `http://${host}:${config.server.port}`;

  const [server, discovery] = await Promise.all([
    options.serverRunning === undefined
      ? probeServer(url)
      : Promise.resolve({ running: options.serverRunning }),
    withTimeout(runtime.discover(), PROBE_TIMEOUT_MS * 2),
    // Servers connect once per process: at once under `hob serve`, here for `hob status`.
    withTimeout(runtime.mcp.start(), PROBE_TIMEOUT_MS * 2),
  ]);
  const reach = (id: string) => {
    const provider = id.split("/")[0];
    const found = discovery?.providers.find((p) => p.name === provider);
    return {
      id,
      provider,
      reachable: found?.ok ?? false,
      ...(found?.ok
        ? {}
        : { error: found?.error ?? (discovery ? "not configured" : "no answer in time") }),
    };
  };

  const list = schedules.list();
  const enabled = list.filter((job) => job.enabled && job.next_run);
  const next = enabled.sort((a, b) => a.next_run!.localeCompare(b.next_run!))[0];
  const held = tasks.list({ limit: 1_000 }).filter((task) => task.claimed_by);
  const dbPath = join(runtime.home, "hob.db");

  // Errors quote what providers and MCP servers said, which may be a key or a header back.
  return scrubSecrets<HobStatus>({
    home: runtime.home,
    server: { url, ...server },
    model: reach(config.model),
    ...(config.heartbeat.model ? { heartbeat_model: reach(config.heartbeat.model) } : {}),
    jobs: {
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
    },
    heartbeat: {
      ...background.heartbeat.state(),
      enabled: config.heartbeat.enabled,
      interval_minutes: config.heartbeat.interval_minutes,
    },
    tasks: {
      counts: tasks.counts(),
      held: held.map((task) => ({
        id: task.id,
        title: task.title,
        status: task.status,
        worker: task.claimed_by!,
        since: task.claimed_at,
      })),
    },
    workers: background.tasks.workers(),
    notifications: { unread: notifications.unreadCount() },
    memory: runtime.memory.index.stats(),
    database: { path: dbPath, bytes: await databaseBytes(dbPath) },
    mcp: runtime.mcp.status(),
  }, secretValues(config));
}

async function probeServer(url: string): Promise<{ running: boolean; version?: string }> {
  try {
    const response = await fetch(`${url}/api/health`, {
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body = await response.json().catch(() => ({}));
    return { running: response.ok, ...(body?.version ? { version: String(body.version) } : {}) };
  } catch {
    return { running: false };
  }
}

async function databaseBytes(path: string): Promise<number> {
  let bytes = 0;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      bytes += (await Deno.stat(path + suffix)).size;
    } catch { /* absent */ }
  }
  return bytes;
}
