/**
 * `hob reset`: what would be deleted, counted first, deleted only when asked.
 * Each part is one transaction, so a reset never leaves half a table.
 */

import { join, relative } from "node:path";
import { ensureHome } from "../home/home.ts";
import { rollback } from "../store/rollback.ts";
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
  const { db } = runtime;
  const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
  const items: ResetItem[] = [];
  const steps: (() => Promise<void> | void)[] = [];
  const wants = (p: ResetPart) => part === p || part === "all";
  const sqlStep = (sql: string) => steps.push(() => transaction(runtime, sql));

  if (wants("conversations")) {
    items.push({
      what: "conversations (chats and sub-agents)",
      count: count("SELECT COUNT(*) AS n FROM conversations WHERE kind IN ('chat', 'subagent')"),
    });
    items.push({
      what: "their messages",
      count: count(
        "SELECT COUNT(*) AS n FROM messages WHERE conversation_id IN (SELECT id FROM conversations WHERE kind IN ('chat', 'subagent'))",
      ),
    });
    sqlStep(
      "DELETE FROM approvals WHERE conversation_id IN (SELECT id FROM conversations WHERE kind IN ('chat', 'subagent')); DELETE FROM conversations WHERE kind IN ('chat', 'subagent');",
    );
  }
  if (wants("tasks")) {
    items.push({ what: "background tasks", count: count("SELECT COUNT(*) AS n FROM tasks") });
    items.push({
      what: "task conversations",
      count: count("SELECT COUNT(*) AS n FROM conversations WHERE kind = 'task'"),
    });
    sqlStep(
      "DELETE FROM tasks; DELETE FROM workers; DELETE FROM conversations WHERE kind = 'task';",
    );
  }
  if (wants("schedules")) {
    items.push({ what: "scheduled jobs", count: count("SELECT COUNT(*) AS n FROM jobs") });
    items.push({ what: "job runs logged", count: count("SELECT COUNT(*) AS n FROM job_runs") });
    items.push({
      what: "job and heartbeat conversations",
      count: count("SELECT COUNT(*) AS n FROM conversations WHERE kind IN ('job', 'heartbeat')"),
    });
    sqlStep(
      "DELETE FROM jobs; DELETE FROM job_runs; DELETE FROM conversations WHERE kind IN ('job', 'heartbeat'); DELETE FROM kv WHERE key = 'heartbeat';",
    );
  }
  if (part === "all") {
    items.push({ what: "notifications", count: count("SELECT COUNT(*) AS n FROM notifications") });
    items.push({
      what: "remembered approval decisions",
      count: count("SELECT COUNT(*) AS n FROM tool_grants"),
    });
    sqlStep(
      "DELETE FROM notifications; DELETE FROM approvals; DELETE FROM tool_grants; DELETE FROM tool_events;",
    );
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
    items.push({
      what: "memory index chunks",
      count: count("SELECT COUNT(*) AS n FROM memory_chunks"),
    });
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

function transaction(runtime: Runtime, sql: string): void {
  runtime.db.exec("BEGIN IMMEDIATE");
  try {
    runtime.db.exec(sql);
    runtime.db.exec("COMMIT");
  } catch (error) {
    rollback(runtime.db);
    throw error;
  }
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
