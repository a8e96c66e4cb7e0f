/**
 * The application layer: hob's actions, each defined once with its input
 * schema, defaults and typed refusals, over the stores — and every way in
 * (REST in src/http, the page in src/page, the CLI in src/cli, the services tools call
 * in src/runtime/services.ts) a thin translator from its wire format to these
 * calls and from {@linkcode ActionError} back to its wire format.
 *
 * - `errors.ts`: {@linkcode ActionError} (`invalid`, `not_found`, `conflict`,
 *   `duplicate`, `busy`) and `checkInput`, the one way input is checked.
 * - `tasks.ts`: background tasks — add, list, counts, get, cancel, resume.
 * - `schedules.ts`: scheduled jobs — list, get, add, update, remove, run, runs.
 * - `notifications.ts`: notifications — list, count the unread, mark read.
 * - `memory.ts`: memory — search, stats, files, read, replace, remember, log,
 *   write a section, reindex.
 * - `status.ts`: the whole assistant's status, over the actions above and
 *   the runtime's probes.
 * - `reset.ts`: what a reset deletes, counted first, deleted when asked.
 * - `conversations.ts`: conversations — list, get, messages, create, rename,
 *   remove, set the model, the tool calls' audit log — and starting a turn;
 *   `conversation_search.ts`: searching them, reading around a hit.
 * - `approvals.ts`: approvals — list, the recent decisions, decide.
 * - `tools.ts`: tools — list, get, invoke as the owner, run a workflow.
 * - `mcp.ts`: MCP servers — their state, their tools, approving tools (pinned by hash),
 *   calling one as the owner; `mcp_probe.ts`: a one-off probe of a server at a URL.
 * - `channels.ts`: the conversation of a chat on a channel, strangers, the
 *   channels' health, a test message, the doctor's probe.
 * - `models.ts`: the models the providers offer, whether one can be used or calls tools.
 * - `hob.ts`: {@linkcode Hob}, the handle every way in holds: these actions and a lifecycle.
 * - `speech.ts`: voice — transcribe, speak, what this hob can hear and say.
 * - `backups.ts`: backups — make one, prune the folder after a scheduled one, their status.
 * - `uploads.ts`: files sent with messages — stored, found again, described to the model.
 *
 * Provenance is an option only the services tools call set: a task or job that a
 * tainted turn creates carries the turn's taint, so its runs start tainted.
 *
 * The layer knows the stores, the scheduler, memory, the tool registry and
 * the core's types; it knows no way in,
 * no wire format, no runtime (the composition root builds it, and hands in
 * what the status probes and a reset deletes on disk, the turn and the
 * uploads) and no model provider (it is handed the router's `checkModel`).
 */

import type { UsageActions, UsageDeps, UsageInput, UsageReport } from "./usage.ts";
import type { TurnInput } from "../core/agent.ts";
import type { AgentEvent } from "../core/types.ts";
import type { Memory } from "../memory/memory.ts";
import type { Scheduler } from "../scheduler/scheduler.ts";
import type { SqliteApprovals } from "../store/approvals.ts";
import type { SqliteConversationStore } from "../store/conversations.ts";
import type { SqliteJobs } from "../store/jobs.ts";
import type { SqliteMaintenance } from "../store/maintenance.ts";
import type { SqliteNotifications } from "../store/notifications.ts";
import type { SqliteTasks } from "../store/tasks.ts";
import type { SqliteToolEvents } from "../store/tool_events.ts";
import type { SqliteChannels } from "../store/channels.ts";
import { type ApprovalActions, createApprovalActions } from "./approvals.ts";
import { type BackupActions, type BackupActionsDeps, createBackupActions } from "./backups.ts";
import { type ChannelActions, createChannelActions, type RunningChannels } from "./channels.ts";
import { createModelActions, type ModelActions, type ModelDeps } from "./models.ts";
import type { SqliteKv } from "../store/kv.ts";
import { createUploadActions, findUpload, type UploadActions } from "./uploads.ts";
import type { SpeechActions, SpeechDeps } from "./speech.ts";
import { type ConversationActions, createConversationActions } from "./conversations.ts";
import { createMemoryActions, type MemoryActions } from "./memory.ts";
import type { SourceAccess } from "./memory_sources.ts";
import { createNotificationActions, type NotificationActions } from "./notifications.ts";
import type { MemoryReset, ResetActions, ResetActionsDeps } from "./reset.ts";
import { createScheduleActions, type ScheduleActions } from "./schedules.ts";
import { createStatusActions, type StatusActions, type StatusProbes } from "./status.ts";
import { createTaskActions, type TaskActions } from "./tasks.ts";
import {
  createToolActions,
  type ToolActions,
  type ToolDeps,
  type WorkflowRunner,
} from "./tools.ts";
import { createMcpActions, type McpActions, type McpDeps } from "./mcp.ts";
import { createSkillActions, type SkillActions, type SkillDeps } from "./skills.ts";

/** The actions of one hob home. */
export interface AppActions {
  tasks: TaskActions;
  schedules: ScheduleActions;
  notifications: NotificationActions;
  memory: MemoryActions;
  status: StatusActions;
  reset: ResetActions;
  conversations: ConversationActions;
  approvals: ApprovalActions;
  tools: ToolActions;
  /** The Agent Skills of the home: installed, reviewed, accepted, read by models. */
  skills: SkillActions;
  mcp: McpActions;
  channels: ChannelActions;
  /** The models the providers offer, whether one can be used, whether it calls tools. */
  models: ModelActions;
  /** Files sent with messages: stored, found again. */
  uploads: UploadActions;
  speech: SpeechActions;
  backups: BackupActions;
  /** {@linkcode UsageActions}, loaded with the first report. */
  usage: { report(input?: UsageInput): Promise<UsageReport> };
}

/** What the actions work on. */
export interface AppDeps {
  tasks: SqliteTasks;
  jobs: SqliteJobs;
  scheduler: Scheduler;
  notifications: SqliteNotifications;
  /** Why a model cannot be used, or null (the provider router's check). */
  checkModel(model: string): string | null;
  /** Model discovery and the doctor's tool call (the provider router's). */
  models: Omit<ModelDeps, "checkModel">;
  memory: Memory;
  /** The wholesale deletes of a reset. */
  maintenance: SqliteMaintenance;
  /** What a tool in a turn may add to memory as a source: the tools' roots and `tools.web`. */
  sources: SourceAccess;
  /** Deleting the memory files on a reset. */
  memoryReset: MemoryReset;
  /** What the status reads beyond the stores. */
  statusProbes: StatusProbes;
  conversations: SqliteConversationStore;
  /** The chats on channels, the messages they delivered, the strangers. */
  channels: SqliteChannels;
  /** The channels as they run (the hub, made after the actions). */
  runningChannels(): RunningChannels;
  /** Small JSON values by key: the conversations `/v1` clients continue. */
  kv: SqliteKv;
  /** The tools, the approvals and the tool calls' audit log (the runtime's toolbox is one). */
  toolbox: ToolDeps & { approvals: SqliteApprovals; events: SqliteToolEvents };
  /** The MCP servers of hob.yaml and their tools (the runtime's hub), the registry they join. */
  mcp: McpDeps;
  /** The skill folders of the home and their installs. */
  skills: SkillDeps;
  /** Runs one turn (the runtime's, which closing interrupts). */
  turn(input: TurnInput): AsyncGenerator<AgentEvent>;
  /** Runs a workflow as `/name input` in chat does (the runtime's chat commands). */
  runWorkflow: WorkflowRunner;
  /** The home, whose uploads folder holds the files sent with messages. */
  home: string;
  /** The speech providers and what the machine has for sound and video. */
  speech: SpeechDeps;
  /** The model call log, the budgets and the clock the usage report reads. */
  usage: UsageDeps;
  /** What writes backups, where their record is kept, `backup:` of hob.yaml, the schedule. */
  backups: BackupActionsDeps;
}

/**
 * Builds the actions of a home (the runtime does, once).
 *
 * @example
 * ```ts
 * const app = createAppActions({
 *   tasks,
 *   jobs,
 *   scheduler,
 *   notifications,
 *   checkModel: (model) => llm.checkModel(model),
 *   models: { discover, probeToolCall },
 *   memory,
 *   maintenance,
 *   memoryReset,
 *   statusProbes,
 *   conversations: store,
 *   channels: new SqliteChannels(db, kv),
 *   runningChannels: () => hub,
 *   kv,
 *   toolbox,
 *   mcp: { hub: mcp, registry: toolbox.registry, toolsReady: toolbox.ready },
 *   skills: { shelf, knownTools, workflows: () => [] },
 *   turn,
 *   home,
 *   speech,
 *   usage: { calls, budgets, now },
 *   backups: { maker, kv, settings, next: () => null, now },
 * });
 * app.tasks.add({ title: "Tidy notes" });
 * ```
 */
export function createAppActions(deps: AppDeps): AppActions {
  const tasks = createTaskActions(deps.tasks);
  const schedules = createScheduleActions({
    jobs: deps.jobs,
    scheduler: deps.scheduler,
    checkModel: deps.checkModel,
  });
  const notifications = createNotificationActions(deps.notifications);
  const speech = speechOnFirstUse(deps.speech);
  const backups = createBackupActions(deps.backups);
  return {
    tasks,
    schedules,
    notifications,
    memory: createMemoryActions(deps.memory, deps.sources),
    status: createStatusActions({
      probes: deps.statusProbes,
      schedules,
      tasks,
      notifications,
      voice: () => speech.capabilities(),
      backups: () => backups.status(),
      integrity: () => deps.maintenance.integrity(),
    }),
    reset: resetOnFirstUse({ maintenance: deps.maintenance, memory: deps.memoryReset }),
    conversations: createConversationActions({
      store: deps.conversations,
      toolEvents: deps.toolbox.events,
      checkModel: deps.checkModel,
      turn: deps.turn,
      findUpload: (path) => findUpload(deps.home, path),
      hear: (attachments, signal) => speech.hear(attachments, signal),
      kv: deps.kv,
    }),
    approvals: createApprovalActions(deps.toolbox.approvals),
    tools: createToolActions(deps.toolbox, deps.runWorkflow),
    skills: createSkillActions(deps.skills),
    mcp: createMcpActions(deps.mcp),
    channels: createChannelActions({
      channels: deps.channels,
      conversations: deps.conversations,
      running: deps.runningChannels,
    }),
    models: createModelActions({ ...deps.models, checkModel: deps.checkModel }),
    speech,
    backups,
    uploads: createUploadActions(deps.home),
    usage: usageOnFirstUse(deps.usage),
  };
}

/**
 * The voice actions, their module loaded by the first transcription or
 * speech and kept; what the machine can hear and say needs no module of theirs.
 */
function speechOnFirstUse(deps: SpeechDeps): SpeechActions {
  let loading: Promise<SpeechActions> | undefined;
  const actions = () =>
    loading ??= import("./speech.ts").then(({ createSpeechActions }) => createSpeechActions(deps));
  return {
    transcribe: async (input, signal) => (await actions()).transcribe(input, signal),
    speak: async (input, signal) => (await actions()).speak(input, signal),
    capabilities: () => deps.capabilities(),
    hear: async (attachments, signal) => (await actions()).hear(attachments, signal),
  };
}

/** The reset action, its module loaded by the first reset and kept. */
function resetOnFirstUse(deps: ResetActionsDeps): ResetActions {
  let loading: Promise<ResetActions> | undefined;
  const actions = () =>
    loading ??= import("./reset.ts").then(({ createResetActions }) => createResetActions(deps));
  return { reset: async (input) => (await actions()).reset(input) };
}

/**
 * The usage actions, their module loaded by the first report and kept: a
 * report is asked for, never needed to start or to run a turn.
 */
function usageOnFirstUse(deps: UsageDeps): AppActions["usage"] {
  let loading: Promise<UsageActions> | undefined;
  const actions = () =>
    loading ??= import("./usage.ts").then(({ createUsageActions }) => createUsageActions(deps));
  return { report: async (input) => (await actions()).report(input) };
}
