/**
 * The audit log of tool calls: every call — by the agent, the owner through
 * the API or CLI, or a skill — with its arguments, result, duration, the
 * permissions its Worker got and how it was cleared.
 */

import { withWriteLock } from "./transaction.ts";
import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";
import { timestamp } from "./timestamp.ts";

/** How a call was cleared to run (or why it was not). */
export type ClearedBy =
  | "policy"
  | "remembered"
  | "approved"
  | "denied"
  | "expired"
  | "owner"
  | "refused";

/** One tool call, as logged. */
export interface ToolEvent {
  id: number;
  conversation_id: string | null;
  tool_call_id: string | null;
  tool: string;
  arguments: string;
  result: string;
  is_error: boolean;
  duration_ms: number;
  /** The Worker's permissions; null when no Worker ran. */
  permissions: Record<string, unknown> | null;
  approval: ClearedBy;
  approval_id: string | null;
  source: string;
  created_at: string;
}

/** What logging a call needs. */
export type NewToolEvent = Omit<ToolEvent, "id" | "created_at">;

interface Row extends Omit<ToolEvent, "is_error" | "permissions"> {
  is_error: number;
  permissions: string | null;
}

/**
 * The SQLite audit log.
 *
 * @example
 * ```ts
 * const log = new SqliteToolEvents(db);
 * log.list(conversationId);
 * ```
 */
export class SqliteToolEvents {
  readonly #db: DatabaseSync;
  readonly #sql: Sql;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#sql = statements(db);
  }

  /**
   * Runs `work`, writes of this store, in one transaction once hob.db's write
   * lock is had: waiting without blocking while another program holds it
   * (see `withWriteLock`).
   */
  write<T>(work: () => T): Promise<T> {
    return withWriteLock(this.#db, work);
  }

  record(event: NewToolEvent): number {
    const result = this.#sql(
      `INSERT INTO tool_events (conversation_id, tool_call_id, tool, arguments, result, is_error, duration_ms,
                                permissions, approval, approval_id, source, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      event.conversation_id,
      event.tool_call_id,
      event.tool,
      event.arguments,
      event.result,
      event.is_error ? 1 : 0,
      Math.round(event.duration_ms),
      event.permissions ? JSON.stringify(event.permissions) : null,
      event.approval,
      event.approval_id,
      event.source,
      timestamp(),
    );
    return Number(result.lastInsertRowid);
  }

  /** A conversation's tool calls in order; `null` lists the owner's direct calls. */
  list(conversationId: string | null, limit = 1_000): ToolEvent[] {
    const rows = this.#sql<Row>(
      `SELECT * FROM tool_events WHERE conversation_id IS ? ORDER BY id LIMIT ?`,
    ).all(conversationId, limit);
    return rows.map((row) => ({
      ...row,
      is_error: row.is_error === 1,
      permissions: row.permissions ? JSON.parse(row.permissions) : null,
    }));
  }
}
