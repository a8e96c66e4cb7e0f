/**
 * The reset action: what resetting a part of hob deletes, counted first and
 * deleted only when asked. Each part of hob.db is one transaction (the store's
 * `SqliteMaintenance`), so a reset never leaves half a table; memory files go
 * through a {@linkcode MemoryReset} the runtime hands in, and the index
 * follows them. It knows the maintenance store; nothing of the home's layout
 * on disk and nothing of any wire format.
 */

import { z } from "zod";
import type { PurgePart, SqliteMaintenance } from "../store/maintenance.ts";
import { checkInput } from "./errors.ts";

/** What can be reset. */
export const RESET_PARTS = ["memory", "tasks", "schedules", "conversations", "all"] as const;
export type ResetPart = typeof RESET_PARTS[number];

/** Memory files the description of a reset names before it says "…". */
const NAMED_FILES = 5;

/** A part to reset; nothing is deleted unless `apply` is true. */
export const resetInput = z.strictObject({
  part: z.enum(RESET_PARTS),
  apply: z.boolean().default(false),
});

export type ResetInput = z.input<typeof resetInput>;

/** One kind of thing a reset deletes, and how many. */
export interface ResetItem {
  what: string;
  count: number;
}

/** What a reset found (and, when `deleted`, deleted). */
export interface ResetReport {
  part: ResetPart;
  deleted: boolean;
  items: ResetItem[];
}

/** The memory side of a reset (the runtime provides it). */
export interface MemoryReset {
  /** Every file under the memory directory, relative to it. */
  files(): Promise<string[]>;
  /** Chunks in the search index now. */
  chunks(): number;
  /** Deletes `files`, puts MEMORY.md back from its template and rebuilds the index. */
  clear(files: string[]): Promise<void>;
}

/** What the reset action works on. */
export interface ResetActionsDeps {
  maintenance: SqliteMaintenance;
  memory: MemoryReset;
}

/** The reset action. */
export interface ResetActions {
  /** Counts what resetting `part` deletes, and deletes it when `apply` is true. */
  reset(input: ResetInput): Promise<ResetReport>;
}

/** A step of a reset: what it will delete, and deleting it. */
interface ResetStep {
  items: ResetItem[];
  apply(): Promise<void> | void;
}

/**
 * The reset action over the maintenance store and the memory files.
 *
 * @example
 * ```ts
 * const resets = createResetActions({ maintenance, memory: memoryReset });
 * (await resets.reset({ part: "tasks" })).items; // [{ what: "background tasks", count: 12 }, …]
 * await resets.reset({ part: "tasks", apply: true });
 * ```
 */
export function createResetActions(deps: ResetActionsDeps): ResetActions {
  return {
    async reset(input) {
      const { part, apply } = checkInput(resetInput, input);
      const steps = await planSteps(deps, part);
      if (apply) { for (const step of steps) await step.apply(); }
      return { part, deleted: apply, items: steps.flatMap((step) => step.items) };
    },
  };
}

/** The steps of resetting `part`, in the order they are shown and done. */
async function planSteps(deps: ResetActionsDeps, part: ResetPart): Promise<ResetStep[]> {
  const { maintenance } = deps;
  const wants = (p: ResetPart) => part === p || part === "all";
  const steps: ResetStep[] = [];
  if (wants("conversations")) {
    const counts = maintenance.count("conversations");
    steps.push(purge(maintenance, "conversations", {
      "conversations (chats and sub-agents)": counts.conversations,
      "their messages": counts.messages,
    }));
  }
  if (wants("tasks")) {
    const counts = maintenance.count("tasks");
    steps.push(purge(maintenance, "tasks", {
      "background tasks": counts.tasks,
      "task conversations": counts.conversations,
    }));
  }
  if (wants("schedules")) {
    const counts = maintenance.count("schedules");
    steps.push(purge(maintenance, "schedules", {
      "scheduled jobs": counts.jobs,
      "job runs logged": counts.runs,
      "job and heartbeat conversations": counts.conversations,
    }));
  }
  if (part === "all") {
    const counts = maintenance.count("activity");
    steps.push(purge(maintenance, "activity", {
      "notifications": counts.notifications,
      "remembered approval decisions": counts.grants,
    }));
  }
  if (wants("memory")) steps.push(await memoryStep(deps.memory));
  return steps;
}

/** A part of hob.db, emptied in one transaction. */
function purge(
  maintenance: SqliteMaintenance,
  part: PurgePart,
  counts: Record<string, number>,
): ResetStep {
  return {
    items: Object.entries(counts).map(([what, count]) => ({ what, count })),
    apply: () => maintenance.purge(part),
  };
}

/** The memory files (a few named) and the index over them. */
async function memoryStep(memory: MemoryReset): Promise<ResetStep> {
  const files = await memory.files();
  const named = files.slice(0, NAMED_FILES).join(", ") + (files.length > NAMED_FILES ? ", …" : "");
  return {
    items: [
      { what: `memory files (${named})`, count: files.length },
      { what: "memory index chunks", count: memory.chunks() },
    ],
    apply: () => memory.clear(files),
  };
}
