/**
 * Upkeep of hob.db as a whole: its integrity check (`hob doctor`) and the
 * wholesale deletes of `hob reset`, each part counted first and deleted in
 * one transaction, so a reset never leaves half a table. Knows the tables;
 * nothing of the files in the home or of how a reset is shown.
 */

import type { DatabaseSync } from "node:sqlite";
import { transaction } from "./transaction.ts";
import { type Sql, statements } from "./statements.ts";

/** Which chats are the user's (sub-agents and channels included); tasks, jobs and the heartbeat have their own parts. */
const CHATS = "kind IN ('chat', 'subagent', 'channel')";

/**
 * What each part of a reset counts and deletes. Deleting a conversation
 * deletes its messages (foreign keys), deleting a job its runs.
 */
const PURGES = {
  conversations: {
    counts: {
      conversations: `SELECT COUNT(*) AS n FROM conversations WHERE ${CHATS}`,
      messages:
        `SELECT COUNT(*) AS n FROM messages WHERE conversation_id IN (SELECT id FROM conversations WHERE ${CHATS})`,
    },
    sql:
      `DELETE FROM approvals WHERE conversation_id IN (SELECT id FROM conversations WHERE ${CHATS}); DELETE FROM conversations WHERE ${CHATS};`,
  },
  tasks: {
    counts: {
      tasks: "SELECT COUNT(*) AS n FROM tasks",
      conversations: "SELECT COUNT(*) AS n FROM conversations WHERE kind = 'task'",
    },
    sql: "DELETE FROM tasks; DELETE FROM workers; DELETE FROM conversations WHERE kind = 'task';",
  },
  schedules: {
    counts: {
      jobs: "SELECT COUNT(*) AS n FROM jobs",
      runs: "SELECT COUNT(*) AS n FROM job_runs",
      conversations: "SELECT COUNT(*) AS n FROM conversations WHERE kind IN ('job', 'heartbeat')",
    },
    sql:
      "DELETE FROM jobs; DELETE FROM job_runs; DELETE FROM conversations WHERE kind IN ('job', 'heartbeat'); DELETE FROM kv WHERE key = 'heartbeat';",
  },
  activity: {
    counts: {
      notifications: "SELECT COUNT(*) AS n FROM notifications",
      grants: "SELECT COUNT(*) AS n FROM tool_grants",
    },
    sql:
      "DELETE FROM notifications; DELETE FROM approvals; DELETE FROM tool_grants; DELETE FROM tool_events;",
  },
} as const;

/**
 * A part of hob.db a reset empties: the user's chats, background tasks,
 * scheduled jobs (and the heartbeat's state), or the activity around them
 * (notifications, approvals, remembered decisions, the tool log).
 */
export type PurgePart = keyof typeof PURGES;
/** How many rows of each kind a part holds, e.g. `{ tasks: 3, conversations: 2 }` for `tasks`. */
export type PurgeCounts<P extends PurgePart> = Record<keyof typeof PURGES[P]["counts"], number>;

/**
 * Whole-database upkeep.
 *
 * @example
 * ```ts
 * const maintenance = new SqliteMaintenance(db);
 * maintenance.integrity(); // "ok"
 * maintenance.count("tasks"); // { tasks: 3, conversations: 2 }
 * maintenance.purge("tasks");
 * ```
 */
export class SqliteMaintenance {
  readonly #db: DatabaseSync;
  readonly #sql: Sql;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#sql = statements(db);
  }

  /** SQLite's integrity check: `"ok"`, or the first problem it found. */
  integrity(): string {
    return this.#sql<{ integrity_check: string }>("PRAGMA integrity_check").one().integrity_check;
  }

  /** How many rows of each kind `part` holds. */
  count<P extends PurgePart>(part: P): PurgeCounts<P> {
    const counts: Record<string, number> = {};
    for (const [name, sql] of Object.entries(PURGES[part].counts)) {
      counts[name] = Number(this.#sql<{ n: number }>(sql).one().n);
    }
    return counts as PurgeCounts<P>;
  }

  /** Deletes `part`, in one transaction. */
  purge(part: PurgePart): void {
    const { sql } = PURGES[part];
    transaction(this.#db, () => this.#db.exec(sql));
  }
}
