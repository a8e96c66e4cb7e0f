/**
 * Notifications: what hob wants the user to see without being asked — a
 * heartbeat that found something, a background task that finished. The page
 * and the API show them; reading one marks it read.
 */

import { withWriteLock } from "./transaction.ts";
import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";
import { timestamp } from "./timestamp.ts";

/** A notification as stored. */
export interface Notification {
  id: number;
  kind: string;
  title: string;
  body: string;
  created_at: string;
  read_at: string | null;
}

/**
 * The notification store.
 *
 * @example
 * ```ts
 * new SqliteNotifications(db).add({ kind: "heartbeat", title: "Heartbeat", body: "The backup failed" });
 * ```
 */
export class SqliteNotifications {
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

  add(notification: { kind: string; title: string; body: string }): Notification {
    const result = this.#sql(
      "INSERT INTO notifications (kind, title, body, created_at) VALUES (?, ?, ?, ?)",
    ).run(notification.kind, notification.title, notification.body, timestamp());
    return this.get(Number(result.lastInsertRowid))!;
  }

  get(id: number): Notification | undefined {
    const row = this.#sql<Notification>("SELECT * FROM notifications WHERE id = ?").get(id);
    return row ? { ...row } : undefined;
  }

  /** Newest first; only unread ones when `unread`. */
  list(options: { unread?: boolean; limit?: number } = {}): Notification[] {
    return this.#sql<Notification>(
      "SELECT * FROM notifications WHERE ? = 0 OR read_at IS NULL ORDER BY id DESC LIMIT ?",
    ).all(options.unread ? 1 : 0, options.limit ?? 50).map((row) => ({ ...row }));
  }

  unreadCount(): number {
    return Number(
      this.#sql<{ n: number }>("SELECT COUNT(*) AS n FROM notifications WHERE read_at IS NULL")
        .one().n,
    );
  }

  /** Marks one read, or all when `id` is "all"; returns how many changed. */
  markRead(id: number | "all"): number {
    const now = timestamp();
    const result = id === "all"
      ? this.#sql("UPDATE notifications SET read_at = ? WHERE read_at IS NULL").run(now)
      : this.#sql("UPDATE notifications SET read_at = ? WHERE id = ? AND read_at IS NULL")
        .run(now, id);
    return Number(result.changes);
  }
}
