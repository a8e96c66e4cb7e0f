/**
 * What the status action (src/app/status.ts) reads beyond the stores, in one
 * home: where the server listens and whether it answers, whether the models'
 * providers answer, the MCP servers, the heartbeat, live workers, the memory
 * index and the database file — and the configuration's secrets to take out.
 * It assembles no report; the action does.
 */

import { join } from "node:path";
import type { HobStatus, ModelStatus, StatusProbes } from "../app/status.ts";
import type { HobConfig } from "../config/schema.ts";
import { withTimeout } from "../core/timeout.ts";
import type { DiscoveryReport } from "../llm/router.ts";
import type { McpHub } from "../mcp/client.ts";
import type { ChannelState } from "../app/channels.ts";
import type { Memory } from "../memory/memory.ts";
import { isLiveOwner } from "../store/owner.ts";
import type { ServerRecord } from "../store/server_record.ts";
import type { Background } from "./background.ts";

/** How long the status waits for a provider or the server to answer. */
const PROBE_TIMEOUT_MS = 3_000;

/** What the probes read. */
export interface StatusProbesDeps {
  home: string;
  config: HobConfig;
  serverRecord: ServerRecord;
  /** Model discovery (the runtime's, cached briefly). */
  discover(): Promise<DiscoveryReport>;
  /** A copy of a value without the configuration's secrets (the runtime's). */
  scrub<T>(value: T): Promise<T>;
  mcp: McpHub;
  background: Background;
  memory: Memory;
  /** The channels' state (the hub's, when it runs). */
  channels(): ChannelState[];
}

/**
 * The status probes of a home.
 *
 * @example
 * ```ts
 * const probes = createStatusProbes({ home, config, serverRecord, discover, scrub, mcp, background, memory });
 * await probes.probeServer(probes.serverUrl()); // { running: false }
 * ```
 */
export function createStatusProbes(deps: StatusProbesDeps): StatusProbes {
  const { home, config, background } = deps;
  const databasePath = join(home, "hob.db");
  return {
    home,
    serverUrl: () => serverUrl(config, deps.serverRecord),
    probeServer,
    async models() {
      const report = await withTimeout(deps.discover(), PROBE_TIMEOUT_MS * 2);
      const reach = (id: string) => reachOf(id, report);
      return {
        model: reach(config.model),
        ...(config.heartbeat.model ? { heartbeat_model: reach(config.heartbeat.model) } : {}),
      };
    },
    async mcp() {
      // Servers connect once per process: at once under `hob serve`, here for `hob status`.
      await withTimeout(deps.mcp.start(), PROBE_TIMEOUT_MS * 2);
      return deps.mcp.status();
    },
    heartbeat: () => ({
      ...background.heartbeat.state(),
      enabled: config.heartbeat.enabled,
      interval_minutes: config.heartbeat.interval_minutes,
    }),
    workers: () => background.tasks.workers(),
    channels: () => deps.channels(),
    memory: () => deps.memory.index.stats(),
    database: async () => ({ path: databasePath, bytes: await databaseBytes(databasePath) }),
    // Errors quote what providers and MCP servers said, which may be a key or a header back.
    redact: (report) => deps.scrub<HobStatus>(report),
  };
}

/** Where a running `hob serve` says it listens; otherwise, where it would. */
function serverUrl(config: HobConfig, record: ServerRecord): string {
  const recorded = record.read();
  if (recorded && isLiveOwner(recorded.owner)) return recorded.url;
  const host = config.server.host.includes(":") ? `[${config.server.host}]` : config.server.host;
  return `http://${host}:${config.server.port}`;
}

/** A model and whether discovery found its provider answering. */
function reachOf(id: string, discovery: DiscoveryReport | undefined): ModelStatus {
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
