/**
 * Notifications: what hob wants the user to see without being asked — a
 * heartbeat that found something, a background task that finished. The page
 * and the API show them; reading one marks it read.
 */

import { withWriteLock } from "./transaction.ts";
import type { DatabaseSync } from "node:sqlite";
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

  constructor(db: DatabaseSync) {
    this.#db = db;
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
    const result = this.#db.prepare(
      "INSERT INTO notifications (kind, title, body, created_at) VALUES (?, ?, ?, ?)",
    ).run(notification.kind, notification.title, notification.body, timestamp());
    return this.get(Number(result.lastInsertRowid))!;
  }

  get(id: number): Notification | undefined {
    const row = this.#db.prepare("SELECT * FROM notifications WHERE id = ?").get(id);
    return row ? { ...row } as unknown as Notification : undefined;
  }

  /** Newest first; only unread ones when `unread`. */
  list(options: { unread?: boolean; limit?: number } = {}): Notification[] {
    return this.#db.prepare(
      "SELECT * FROM notifications WHERE ? = 0 OR read_at IS NULL ORDER BY id DESC LIMIT ?",
    ).all(options.unread ? 1 : 0, options.limit ?? 50).map((row) =>
      ({ ...row }) as unknown as Notification
    );
  }

  unreadCount(): number {
    return Number(
      (this.#db.prepare("SELECT COUNT(*) AS n FROM notifications WHERE read_at IS NULL").get() as {
        n: number;
      }).n,
    );
  }

  /** Marks one read, or all when `id` is "all"; returns how many changed. */
  markRead(id: number | "all"): number {
    const now = timestamp();
    const result = id === "all"
      ? this.#db.prepare("UPDATE notifications SET read_at = ? WHERE read_at IS NULL").run(now)
      : this.#db.prepare("UPDATE notifications SET read_at = ? WHERE id = ? AND read_at IS NULL")
        .run(now, id);
    return Number(result.changes);
  }
}
