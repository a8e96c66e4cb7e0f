/**
 * What user tools and skills said they were when inspected, kept in hob.db's
 * kv table by their source's hash, so a start does not inspect unchanged
 * modules again. Scoped by a `release` (hob's and Deno's versions): another
 * release inspects afresh, and drops what the previous one kept.
 */

import type { DatabaseSync } from "node:sqlite";
import { type Sql, statements } from "./statements.ts";
import { timestamp } from "./timestamp.ts";

/** Every key of this store starts with it. */
const PREFIX = "inspection:";

/**
 * Inspections of one release.
 *
 * @example
 * ```ts
 * const inspections = new SqliteInspections(db, `${VERSION}/${Deno.version.deno}`);
 * inspections.set("tool:9f86…", description);
 * ```
 */
export class SqliteInspections<T> {
  readonly #sql: Sql;
  readonly #prefix: string;

  constructor(db: DatabaseSync, release: string) {
    this.#sql = statements(db);
    this.#prefix = `${PREFIX}${release}:`;
  }

  get(key: string): T | undefined {
    const row = this.#sql<{ value: string }>("SELECT value FROM kv WHERE key = ?")
      .get(this.#prefix + key);
    return row ? JSON.parse(row.value) as T : undefined;
  }

  set(key: string, value: T): void {
    this.#sql(
      "INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    ).run(this.#prefix + key, JSON.stringify(value), timestamp());
  }

  /** Deletes every inspection, of any release, but this release's `keys`. */
  keepOnly(keys: ReadonlySet<string>): void {
    const rows = this.#sql<{ key: string }>("SELECT key FROM kv WHERE key >= ? AND key < ?")
      .all(PREFIX, `${PREFIX.slice(0, -1)};`);
    const remove = this.#sql("DELETE FROM kv WHERE key = ?");
    for (const { key } of rows) {
      if (!key.startsWith(this.#prefix) || !keys.has(key.slice(this.#prefix.length))) {
        remove.run(key);
      }
    }
  }
}
