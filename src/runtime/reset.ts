/**
 * `hob reset`: what would be deleted, counted first, deleted only when asked.
 * Each part of hob.db is one transaction (the store's `SqliteMaintenance`), so
 * a reset never leaves half a table; memory files go, and the index follows.
 */

import { join, relative } from "node:path";
import { ensureHome } from "../home/home.ts";
import type { PurgePart } from "../store/maintenance.ts";
import type { Runtime } from "./runtime.ts";

/** What can be reset. */
export const RESET_PARTS = ["memory", "tasks", "schedules", "conversations", "all"] as const;
export type ResetPart = typeof RESET_PARTS[number];

/** One kind of thing a reset deletes, and how many. */
export interface ResetItem {
  what: string;
  count: number;
}

/** A planned reset: what it deletes, and doing it. */
export interface ResetPlan {
  items: ResetItem[];
  apply(): Promise<void>;
}

/**
 * Counts what resetting `part` deletes.
 *
 * @example
 * ```ts
 * const plan = await planReset(runtime, "tasks");
 * plan.items; // [{ what: "background tasks", count: 12 }, …]
 * await plan.apply();
 * ```
 */
export async function planReset(runtime: Runtime, part: ResetPart): Promise<ResetPlan> {
  const { maintenance } = runtime;
  const items: ResetItem[] = [];
  const steps: (() => Promise<void> | void)[] = [];
  const wants = (p: ResetPart) => part === p || part === "all";
  const purge = (p: PurgePart) => steps.push(() => maintenance.purge(p));

  if (wants("conversations")) {
    const counts = maintenance.count("conversations");
    items.push({ what: "conversations (chats and sub-agents)", count: counts.conversations });
    items.push({ what: "their messages", count: counts.messages });
    purge("conversations");
  }
  if (wants("tasks")) {
    const counts = maintenance.count("tasks");
    items.push({ what: "background tasks", count: counts.tasks });
    items.push({ what: "task conversations", count: counts.conversations });
    purge("tasks");
  }
  if (wants("schedules")) {
    const counts = maintenance.count("schedules");
    items.push({ what: "scheduled jobs", count: counts.jobs });
    items.push({ what: "job runs logged", count: counts.runs });
    items.push({ what: "job and heartbeat conversations", count: counts.conversations });
    purge("schedules");
  }
  if (part === "all") {
    const counts = maintenance.count("activity");
    items.push({ what: "notifications", count: counts.notifications });
    items.push({ what: "remembered approval decisions", count: counts.grants });
    purge("activity");
  }
  if (wants("memory")) {
    const dir = join(runtime.home, "memory");
    const files: string[] = [];
    await collectFiles(dir, files);
    items.push({
      what: `memory files (${files.map((f) => relative(dir, f)).slice(0, 5).join(", ")}${
        files.length > 5 ? ", …" : ""
      })`,
      count: files.length,
    });
    items.push({ what: "memory index chunks", count: runtime.memory.index.stats().chunks });
    steps.push(async () => {
      for (const file of files) await Deno.remove(file).catch(() => {});
      // MEMORY.md comes back as the template; the index follows the files.
      await ensureHome(runtime.home);
      await runtime.memory.reindex();
    });
  }
  return {
    items,
    async apply() {
      for (const step of steps) await step();
    },
  };
}

async function collectFiles(dir: string, into: string[]): Promise<void> {
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await collectFiles(path, into);
      else into.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}
