/**
 * The composition root: opens a home and wires the adapters (SQLite store,
 * provider router, tool registry, Markdown prompt sources) into the agent. The
 * only module that knows them all; the CLI and the HTTP server start here.
 */

import type { DatabaseSync } from "node:sqlite";
import { join, resolve } from "node:path";
import { loadConfig, type LoadedConfig } from "../config/load.ts";
import { scrubSecrets, secretValues } from "../config/redact.ts";
import type { HobConfig } from "../config/schema.ts";
import { type AgentDeps, runTurn, type TurnInput } from "../core/agent.ts";
import type { Clock, ToolRegistryPort } from "../core/ports.ts";
import type { AgentEvent } from "../core/types.ts";
import type { Hob, StartedWork } from "../app/hob.ts";
import { ensureHome } from "../home/home.ts";
import { createLlmRouter, type DiscoveryReport, type LlmRouter } from "../llm/router.ts";
import { Memory } from "../memory/memory.ts";
import { FileVersions } from "../memory/versions.ts";
import { McpHub } from "../mcp/client.ts";
import type { McpDefinition } from "../mcp/pins.ts";
import { SqliteConversationStore } from "../store/conversations.ts";
import { openDatabase } from "../store/database.ts";
import { REQUEST_LOCK_WAIT_MS, stopWaiting } from "../store/transaction.ts";
import { SqliteKv } from "../store/kv.ts";
import { SqliteMcpPins } from "../store/mcp_pins.ts";
import { SqliteMaintenance } from "../store/maintenance.ts";
import { ServerRecord } from "../store/server_record.ts";
import { SqliteChannels } from "../store/channels.ts";
import type { ChannelHub } from "../channels/hub.ts";
import { createChannelHub } from "./channels.ts";
import { type AppActions, createAppActions } from "../app/app.ts";
import { type Background, createBackground } from "./background.ts";
import { createServices, createWorkflowCommands } from "./services.ts";
import { createMemoryReset } from "./reset.ts";
import { createStatusProbes } from "./status.ts";
import { openToolbox, type Toolbox } from "./toolbox.ts";
import { attachmentPort } from "../app/uploads.ts";
import { speechDeps } from "./voice_deps.ts";
import { countingRouter } from "./model_calls.ts";
import { SqliteModelCalls } from "../store/model_calls.ts";
import { budgetWarning } from "../app/budgets.ts";
import type { BackupActionsDeps } from "../app/backups.ts";
import type { SkillDeps } from "../app/skills.ts";
import { SkillShelf } from "../skills/shelf.ts";
import { SqliteSkillInstalls } from "../store/skill_installs.ts";

/** How often a streaming reply's partial text is written to the database. */
const DRAFT_SAVE_INTERVAL_MS = 250;
/** How long a model discovery result is reused before providers are asked again. */
const DISCOVERY_CACHE_MS = 30_000;
/** How long closing waits for interrupted turns to save before it goes on. */
const INTERRUPT_WAIT_MS = 5_000;

/**
 * An open home: the handle the ways in hold ({@linkcode Hob}) and what the
 * composition root wires it from — the database, the stores, the router, the
 * agent's dependencies. Only src/runtime, `hob serve` and `hob worker` (the
 * commands that run a process) hold a Runtime; tests/code/handle_test.ts fails otherwise.
 */
export interface Runtime extends Hob {
  /**
   * The database handle, for the wiring (and benchmarks) only: code in src/
   * reaches hob.db through the stores below, and a test
   * (tests/app/database_handle_test.ts) fails if it does otherwise.
   */
  db: DatabaseSync;
  /** The conversations and their messages (the store the agent loop writes). */
  conversations: SqliteConversationStore;
  /** Small JSON values by key. */
  kv: SqliteKv;
  /** Where a running `hob serve` listens. */
  serverRecord: ServerRecord;
  /** The integrity check and the wholesale deletes of `hob reset`. */
  maintenance: SqliteMaintenance;
  llm: LlmRouter;
  agent: AgentDeps;
  toolbox: Toolbox;
  memory: Memory;
  /** Replies a crashed process left streaming, found and marked interrupted at open. */
  recovered: number;
  /** Scheduled jobs, heartbeat, background tasks, notifications; started by `hob serve`. */
  background: Background;
  /** The MCP servers of hob.yaml; connected by `hob serve` or before the first turn. */
  mcp: McpHub;
  /** The channels of hob.yaml (Telegram…); started by `hob serve`. */
  channels: ChannelHub;
  /**
   * Starts a turn that {@linkcode Runtime.close} can interrupt; `tools`
   * replaces the registry for this turn (a task's terminal tools).
   */
  turn(input: TurnInput, tools?: ToolRegistryPort): AsyncGenerator<AgentEvent>;
  /** Model discovery, cached briefly; `refresh` asks the providers again. */
  discover(refresh?: boolean): Promise<DiscoveryReport>;
}

/** Options for {@linkcode openRuntime}. */
export interface OpenRuntimeOptions {
  home: string;
  env?: Record<string, string | undefined>;
  clock?: Clock;
  /** Where lines about MCP servers connecting and failing go. */
  log?: (line: string) => void;
}

/**
 * Opens a home, creating it from the templates on first use.
 *
 * @example
 * ```ts
 * const runtime = await openRuntime({ home: "/home/me/.hob" });
 * for await (const event of runtime.turn({ message: "hi" })) console.log(event);
 * await runtime.close();
 * ```
 */
export async function openRuntime(options: OpenRuntimeOptions): Promise<Runtime> {
  const { home } = options;
  const clock = options.clock ?? { now: () => new Date() };
  await ensureHome(home);
  const loaded: LoadedConfig = await loadConfig({ home, env: options.env });
  const { config } = loaded;
  const db = openDatabase(join(home, "hob.db"));
  const store = new SqliteConversationStore(db);
  const recovered = store.recoverInterrupted();
  const now = () => clock.now();
  const { calls, llm, warning } = countedCalls(config, db, store, now);
  const versions = new FileVersions({ home, db, now });
  const toolbox = await openToolbox({ home, config, db, now, files: versions.files });
  const memory = new Memory({ home, db, config, now, versions });
  const mcp = new McpHub(config.mcpServers, toolbox.registry, {
    cwd: join(home, "workspace"),
    log: options.log,
    pins: new SqliteMcpPins<McpDefinition>(db),
  });
  const agent = agentDeps({ home, config, clock, llm, store, toolbox, memory });
  const ready = () => Promise.all([toolbox.ready, mcp.start()]);
  const { turn, interrupt } = interruptibleTurns(agent, ready, warning);
  const background = createBackground({
    home,
    config,
    db,
    store,
    calls,
    memory,
    turn,
    tools: toolbox.registry,
    now: () => clock.now(),
    // The hub and the actions below exist before anything runs in the background.
    deliver: (channel, text) => channels.tellOwner(channel, text),
    backups: () => access.app.backups,
  });

  const discover = cachedDiscovery(llm, secretScrubber(config));
  const { channelStore, ...access } = openAccess({
    home,
    config,
    db,
    conversations: store,
    background,
    llm,
    agent,
    memory,
    mcp,
    toolbox,
    turn,
    discover,
    calls,
    now,
    // Asked only once the runtime is open, when the hub below exists.
    channels: () => channels,
  });
  const channels = createChannelHub({
    home,
    config,
    env: options.env ?? Deno.env.toObject(),
    app: access.app,
    store: channelStore,
    log: options.log ?? ((line) => console.error(`hob: ${line}`)),
  });
  connectSkills(agent, toolbox, access.app);
  const hob = createServices(agent, toolbox, access.app);
  toolbox.registry.setServices(hob.services);
  agent.commands = createWorkflowCommands(toolbox, hob);

  const parts = { toolbox, memory, background, mcp, channels, recovered, db, interrupt };
  let closing: Promise<void> | undefined;
  return {
    home,
    config,
    configPath: loaded.path,
    db,
    conversations: store,
    ...access,
    llm,
    agent,
    toolbox,
    memory,
    recovered,
    background,
    mcp,
    channels,
    turn,
    discover,
    writable: (signal) => store.write(() => {}, { waitMs: REQUEST_LOCK_WAIT_MS, signal }),
    start: () => startBeside(parts),
    interrupt,
    close: () => closing ??= closeAll(parts),
  };
}

/** What runs beside a server, started: watchers, jobs, heartbeat, task workers, MCP, channels. */
async function startBeside(
  parts: Pick<Runtime, "toolbox" | "memory" | "background" | "mcp" | "channels" | "recovered">,
): Promise<StartedWork> {
  // User tools and workflows edited while hob runs are reloaded.
  parts.toolbox.watch();
  // Memory files edited while hob runs (vim, a sync tool) are indexed within moments.
  parts.memory.watch();
  // Jobs, heartbeat and task workers; runs missed while hob was down are handled first.
  const started = await parts.background.start();
  // MCP servers connect deferred, while nobody waits; their tools join the registry as they come.
  parts.mcp.start();
  // Telegram and the other channels of hob.yaml: each reads and answers in a loop of its own.
  parts.channels.start();
  return { ...started, recovered: parts.recovered };
}

/** Stops what runs, then closes the MCP servers, the tools, memory and the database. */
async function closeAll(
  parts: Pick<
    Runtime,
    "toolbox" | "memory" | "background" | "mcp" | "channels" | "db" | "interrupt"
  >,
): Promise<void> {
  const { db } = parts;
  await stopAll(db, [parts.interrupt(), parts.background.stop(), parts.channels.stop()]);
  await parts.mcp.close();
  parts.toolbox.close();
  await parts.memory.close();
  db.close();
}

/**
 * Waits for what is stopping (turns saving, the background, the channels) —
 * while another program holds hob.db, no longer than turns get to save: then
 * every wait for its lock ends, as do those still to come.
 */
async function stopAll(db: DatabaseSync, stopping: Promise<unknown>[]): Promise<void> {
  const giveUp = setTimeout(() => stopWaiting(db), INTERRUPT_WAIT_MS);
  await Promise.all(stopping);
  clearTimeout(giveUp);
  stopWaiting(db);
}

/**
 * The call log, the router that counts every call into it, and the budget
 * warning of a turn's conversation.
 */
function countedCalls(
  config: HobConfig,
  db: DatabaseSync,
  store: SqliteConversationStore,
  now: () => Date,
) {
  const calls = new SqliteModelCalls(db);
  const llm = countingRouter(createLlmRouter(config), {
    calls,
    conversation: (id) => store.getConversation(id),
    prices: config.usage.prices,
    now,
  });
  const warning = (conversationId: string) => {
    // Only people chatting are warned; the runs no one watches are paused instead.
    const kind = store.getConversation(conversationId)?.kind;
    if (kind !== "chat" && kind !== "channel") return null;
    return budgetWarning({ calls, budgets: config.usage.budgets, now });
  };
  return { calls, llm, warning };
}

/** What the agent loop runs on: the adapters of this home and hob.yaml's agent settings. */
function agentDeps(
  parts: Pick<Runtime, "home" | "config" | "llm" | "toolbox" | "memory"> & {
    store: SqliteConversationStore;
    clock: Clock;
  },
): AgentDeps {
  const { config, memory } = parts;
  return {
    llm: parts.llm,
    store: parts.store,
    tools: parts.toolbox.registry,
    prompt: memory.promptSources(),
    memory: {
      logNote: (text, heading, from) =>
        memory.logNote(text, { author: "flush", via: "auto-flush", ...from }, heading),
    },
    attachments: attachmentPort(parts.home),
    clock: parts.clock,
    settings: {
      defaultModel: config.model,
      maxToolIterations: config.agent.max_tool_iterations,
      contextTokens: config.agent.context_tokens,
      maxOutputTokens: config.agent.max_output_tokens,
      maxHistoryMessages: config.agent.max_history_messages,
      autoTitle: config.agent.auto_title,
      toolOffer: { mode: config.tools.offer, budgetTokens: config.tools.offer_tokens },
      draftSaveIntervalMs: DRAFT_SAVE_INTERVAL_MS,
      flush: {
        enabled: config.memory.flush.enabled,
        thresholdTokens: config.memory.flush.threshold_tokens,
        keepMessages: config.memory.flush.keep_messages,
      },
    },
  };
}

/**
 * Turns that `interrupt` can stop: each waits for `before` (the tools loaded,
 * the MCP servers connected), then runs on `agent`, or on `tools` when given.
 * A turn whose conversation `warning` has words for gets them as a `budget`
 * notice right after its start.
 */
function interruptibleTurns(
  agent: AgentDeps,
  before: () => Promise<unknown>,
  warning: (conversationId: string) => string | null,
): Pick<Runtime, "turn" | "interrupt"> {
  const running = new Map<AbortController, Promise<void>>();

  async function* turn(input: TurnInput, tools?: ToolRegistryPort): AsyncGenerator<AgentEvent> {
    const controller = new AbortController();
    const signal = input.signal
      ? AbortSignal.any([input.signal, controller.signal])
      : controller.signal;
    let finish!: () => void;
    running.set(controller, new Promise<void>((resolve) => finish = resolve));
    try {
      await before();
      for await (
        const event of runTurn(tools ? { ...agent, tools } : agent, { ...input, signal })
      ) {
        yield event;
        const words = event.type === "start" ? warning(event.conversation_id) : null;
        if (words) yield { type: "notice", code: "budget", message: words };
      }
    } finally {
      running.delete(controller);
      finish();
    }
  }

  async function interrupt(): Promise<void> {
    for (const controller of running.keys()) controller.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(running.values()),
      new Promise((resolve) => timer = setTimeout(resolve, INTERRUPT_WAIT_MS)),
    ]);
    clearTimeout(timer);
  }

  return { turn, interrupt };
}

/** Takes the configuration's secrets out of a value, or out of a value still coming. */
type Scrub = <T>(value: T | Promise<T>) => Promise<T>;

/** The configuration's secrets taken out of a value (a discovery report, a status) once it has come. */
function secretScrubber(config: HobConfig): Scrub {
  return async function scrub<T>(value: T | Promise<T>): Promise<T> {
    return scrubSecrets(await value, secretValues(config));
  };
}

/** Model discovery, reused for {@linkcode DISCOVERY_CACHE_MS}; `refresh` asks the providers again. */
function cachedDiscovery(llm: LlmRouter, scrub: Scrub): Runtime["discover"] {
  let discovery: { at: number; report: Promise<DiscoveryReport> } | undefined;
  return function discover(refresh = false) {
    const now = Date.now();
    if (refresh || !discovery || now - discovery.at > DISCOVERY_CACHE_MS) {
      // A provider's error may quote its URL with a password in it: never shown.
      discovery = { at: now, report: scrub(llm.discover()) };
    }
    return discovery.report;
  };
}

/**
 * What the backup action works on: the backup area's maker (loaded with the
 * first backup: the archive's libraries are no start's business), the kv
 * table for its record, `backup:` of hob.yaml and the schedule's next time.
 */
function backupDeps(
  parts: Pick<Runtime, "home" | "config" | "background"> & { now: () => Date },
  kv: SqliteKv,
): BackupActionsDeps {
  const { home, config } = parts;
  const dir = resolve(home, config.backup.dir);
  return {
    maker: {
      make: async (options) =>
        (await import("../backup/make.ts")).makeBackup({ home, dir, now: parts.now, ...options }),
      prune: async (keep) => (await import("../backup/folder.ts")).pruneBackups(dir, keep),
    },
    kv,
    settings: {
      every: config.backup.every ?? null,
      keep: config.backup.keep,
      dir,
      with_secrets: config.backup.with_secrets,
    },
    next: () => parts.background.backups?.next() ?? null,
    now: parts.now,
  };
}

/** What every turn lists of the skills, and the tools the owner granted those a turn follows. */
function connectSkills(agent: AgentDeps, toolbox: Toolbox, app: AppActions): void {
  agent.prompt.skills = () => app.skills.offered();
  toolbox.registry.setSkillGrants((names) => app.skills.grants(names));
}

/** The skill folders of HOME/skills, their installs in hob.db, and what the review knows of tools. */
function skillDeps(
  home: string,
  db: DatabaseSync,
  toolbox: Toolbox,
  web: HobConfig["tools"]["web"],
): SkillDeps {
  return {
    web,
    shelf: new SkillShelf(join(home, "skills"), new SqliteSkillInstalls(db)),
    knownTools: async () => {
      await toolbox.ready;
      return toolbox.registry.list().map(({ name, side_effect }) => ({ name, side_effect }));
    },
    workflows: () =>
      [...toolbox.workflows.values()].map(({ name, description }) => ({ name, description })),
  };
}

/** What the ways in reach hob.db through: the app's actions and the small stores. */
function openAccess(
  parts:
    & Pick<
      Runtime,
      | "home"
      | "config"
      | "db"
      | "conversations"
      | "background"
      | "llm"
      | "agent"
      | "memory"
      | "mcp"
      | "toolbox"
      | "turn"
      | "discover"
    >
    & { channels: () => ChannelHub; calls: SqliteModelCalls; now: () => Date },
): Pick<Runtime, "app" | "kv" | "serverRecord" | "maintenance"> & { channelStore: SqliteChannels } {
  const { home, background, memory } = parts;
  const kv = new SqliteKv(parts.db);
  const serverRecord = new ServerRecord(kv);
  const maintenance = new SqliteMaintenance(parts.db);
  const statusProbes = createStatusProbes({
    home,
    config: parts.config,
    serverRecord,
    discover: () => parts.discover(),
    scrub: secretScrubber(parts.config),
    mcp: parts.mcp,
    background,
    memory,
    channels: () => parts.channels().states(),
  });
  const channelStore = new SqliteChannels(parts.db, kv);
  return {
    app: createAppActions({
      tasks: background.tasks,
      jobs: background.jobs,
      scheduler: background.scheduler,
      notifications: background.notifications,
      checkModel: (model) => parts.llm.checkModel(model),
      models: {
        discover: (refresh) => parts.discover(refresh),
        probeToolCall: async (model) =>
          (await import("./model_advice.ts")).probeToolCall(parts.llm, parts.agent.tools, model),
      },
      memory,
      sources: { roots: () => parts.toolbox.scope.roots, web: parts.config.tools.web },
      maintenance,
      memoryReset: createMemoryReset(home, memory),
      statusProbes,
      conversations: parts.conversations,
      channels: channelStore,
      runningChannels: parts.channels,
      kv,
      toolbox: parts.toolbox,
      mcp: {
        hub: parts.mcp,
        registry: parts.toolbox.registry,
        toolsReady: () => parts.toolbox.ready,
      },
      skills: skillDeps(home, parts.db, parts.toolbox, parts.config.tools.web),
      turn: parts.turn,
      runWorkflow: (name, input, signal) =>
        parts.agent.commands!.run(name, input, { conversation_id: null, signal, source: "skill" }),
      home,
      speech: speechDeps(home, parts.config),
      usage: { calls: parts.calls, budgets: parts.config.usage.budgets, now: parts.now },
      backups: backupDeps(parts, kv),
    }),
    kv,
    serverRecord,
    maintenance,
    channelStore,
  };
}
