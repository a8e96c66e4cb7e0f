/** Small JSON values by key in hob.db: the heartbeat's state, where `hob serve` listens, /v1 histories. */

import type { DatabaseSync } from "node:sqlite";
import { statements } from "./statements.ts";
import { timestamp } from "./timestamp.ts";

/** The value stored under `key`, or undefined. */
export function readKv<T>(db: DatabaseSync, key: string): T | undefined {
  const row = statements(db)<{ value: string }>("SELECT value FROM kv WHERE key = ?").get(key);
  return row ? JSON.parse(row.value) as T : undefined;
}

/** Stores `value` under `key`, replacing what was there. */
export function writeKv(db: DatabaseSync, key: string, value: unknown): void {
  statements(db)(
    "INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
  ).run(key, JSON.stringify(value), timestamp());
}

/** Removes `key`. */
export function deleteKv(db: DatabaseSync, key: string): void {
  statements(db)("DELETE FROM kv WHERE key = ?").run(key);
}

/**
 * The key-value table as a store, for code outside src/store that must not
 * hold the database handle.
 *
 * @example
 * ```ts
 * const kv = new SqliteKv(db);
 * kv.write("v1:history:ab12", "conversation-id");
 * kv.read<string>("v1:history:ab12"); // "conversation-id"
 * ```
 */
export class SqliteKv {
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /** The value stored under `key`, or undefined. */
  read<T>(key: string): T | undefined {
    return readKv<T>(this.#db, key);
  }

  /** Stores `value` (as JSON) under `key`, replacing what was there. */
  write(key: string, value: unknown): void {
    writeKv(this.#db, key, value);
  }

  /** Removes `key`. */
  delete(key: string): void {
    deleteKv(this.#db, key);
  }
}
