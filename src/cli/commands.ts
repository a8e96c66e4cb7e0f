/**
 * The table of hob's commands: each one's name and one-line summary, and how
 * to load it. `hob --help` prints this table without loading any command, and
 * `hob <command>` loads only the module of the command it names — so a
 * command starts with what it needs, not with all of hob. Each import is a
 * string literal, so `deno compile` sees every command module.
 */

import type { Command } from "./command.ts";

/** A command as `hob --help` lists it, and how to load the whole of it. */
export interface CommandEntry {
  name: string;
  /** The command's own `summary` (tests/cli/commands_test.ts keeps the two the same). */
  summary: string;
  load(): Promise<Command>;
}

/**
 * Every command, in the order `hob --help` lists them.
 *
 * @example
 * ```ts
 * const command = await COMMANDS.find((entry) => entry.name === "status")?.load();
 * ```
 */
export const COMMANDS: CommandEntry[] = [
  {
    name: "serve",
    summary: "Start hob's HTTP API on localhost",
    load: async () => (await import("./serve.ts")).serve,
  },
  {
    name: "ask",
    summary: "Ask one question and stream the answer",
    load: async () => (await import("./ask.ts")).ask,
  },
  {
    name: "chat",
    summary: "Chat in the terminal",
    load: async () => (await import("./chat.ts")).chat,
  },
  {
    name: "init",
    summary: "Create the hob home (config, identity, memory, token)",
    load: async () => (await import("./init.ts")).init,
  },
  {
    name: "onboard",
    summary: "Set hob up: pick a local model or enter an API key, then a test chat",
    load: async () => (await import("./onboard.ts")).onboard,
  },
  {
    name: "models",
    summary: "List the models the providers offer",
    load: async () => (await import("./models.ts")).models,
  },
  {
    name: "usage",
    summary: "What the model calls cost: by model, kind, job or tool, and per day",
    load: async () => (await import("./usage.ts")).usage,
  },
  {
    name: "config",
    summary: "Show the effective configuration (config show)",
    load: async () => (await import("./config.ts")).config,
  },
  {
    name: "doctor",
    summary: "Check config, provider, tool calling and permissions",
    load: async () => (await import("./doctor.ts")).doctor,
  },
  {
    name: "memory",
    summary: "Search, read and write memory; rebuild its index",
    load: async () => (await import("./memory.ts")).memory,
  },
  {
    name: "tool",
    summary: "List tools, or call one directly (tool list, tool call NAME --args JSON)",
    load: async () => (await import("./tool.ts")).tool,
  },
  {
    name: "skill",
    summary: "Agent Skills: add one (reviewed before use), list, show, accept, remove",
    load: async () => (await import("./skill.ts")).skill,
  },
  {
    name: "mcp",
    summary: "MCP servers hob uses (list, tools, approve, call) and hob as an MCP server (serve)",
    load: async () => (await import("./mcp.ts")).mcp,
  },
  {
    name: "channels",
    summary: "Channels (Telegram…): list, pending strangers, forget, test",
    load: async () => (await import("./channels.ts")).channels,
  },
  {
    name: "transcribe",
    summary: "Turn speech in an audio file into text",
    load: async () => (await import("./voice.ts")).transcribe,
  },
  {
    name: "say",
    summary: "Speak text aloud, or into an audio file (-o FILE)",
    load: async () => (await import("./voice.ts")).say,
  },
  {
    name: "approvals",
    summary: "List pending tool approvals, approve or deny one",
    load: async () => (await import("./approvals.ts")).approvals,
  },
  {
    name: "cron",
    summary: "Scheduled jobs: list, add, remove, enable, disable, run, runs",
    load: async () => (await import("./cron.ts")).cron,
  },
  {
    name: "task",
    summary: "Background tasks: add, list, show, cancel, resume",
    load: async () => (await import("./task.ts")).task,
  },
  {
    name: "worker",
    summary: "Run background tasks (alongside or instead of 'hob serve')",
    load: async () => (await import("./worker.ts")).worker,
  },
  {
    name: "status",
    summary: "Show the server, model, jobs, heartbeat, tasks, workers, memory, backups",
    load: async () => (await import("./status.ts")).status,
  },
  {
    name: "backup",
    summary: "Back up the home into one .tar.gz, while hob serve runs or not",
    load: async () => (await import("./backup.ts")).backup,
  },
  {
    name: "restore",
    summary: "Bring a backup back as a home (checked, migrated; --force to replace one)",
    load: async () => (await import("./restore.ts")).restore,
  },
  {
    name: "reset",
    summary: "Delete memory, tasks, schedules or conversations (asks for --yes)",
    load: async () => (await import("./reset.ts")).reset,
  },
];
