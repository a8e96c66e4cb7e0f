/**
 * The handle every way in holds: the application's actions and a small
 * lifecycle. HTTP, the page, the CLI, MCP, `/v1`, the channels and the tool
 * services reach hob through it and nothing else; the runtime (the
 * composition root, src/runtime) is the one thing that builds it, and only
 * the commands that run a process (`hob serve`, `hob worker`) hold more.
 */

import type { HobConfig } from "../config/schema.ts";
import type { MissedRuns } from "../scheduler/scheduler.ts";
import type { AppActions } from "./app.ts";

/** What `start` began: the background's state and what a crash left behind. */
export interface StartedWork {
  scheduler: boolean;
  heartbeat: boolean;
  /** Whether scheduled backups run (`backup.every`). */
  backups: boolean;
  workers: number;
  /** Jobs with runs missed while hob was down or cut off by a crash, and what was done. */
  missed: MissedRuns[];
  /** Replies a crashed process left streaming, marked interrupted when the home opened. */
  recovered: number;
}

/** An open home, as the ways in see it. */
export interface Hob {
  /** The home's directory. */
  readonly home: string;
  /** hob.yaml as loaded (defaults filled in). */
  readonly config: HobConfig;
  /** Where hob.yaml is (or would be). */
  readonly configPath: string;
  /** Every action, each defined once (src/app). */
  readonly app: AppActions;
  /**
   * Starts what runs beside a server: the watchers of tools, skills and
   * memory, jobs, heartbeat and task workers, the MCP servers, the channels.
   */
  start(): Promise<StartedWork>;
  /**
   * Resolves once hob.db can be written, waiting (without blocking) as long as
   * a request may while another program holds its write lock; then rejects
   * with a `StorageError` saying it is busy. `signal` stops the wait.
   */
  writable(signal?: AbortSignal): Promise<void>;
  /** Interrupts running turns and waits (briefly) until they have saved their partial replies. */
  interrupt(): Promise<void>;
  /** Interrupts running turns, stops what `start` began and closes the database. */
  close(): Promise<void>;
}
