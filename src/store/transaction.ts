/**
 * The one way hob writes a transaction: `BEGIN IMMEDIATE`, the work, `COMMIT`
 * — or, when anything throws, a rollback that keeps the real error. Knows
 * SQLite's locking, nothing of what the work writes.
 */

import type { DatabaseSync } from "node:sqlite";
import { rollback } from "./rollback.ts";

/**
 * Runs `work` in one write transaction and returns what it returns. The write
 * lock is taken at `BEGIN IMMEDIATE`, so a second writer waits (busy_timeout)
 * at the start instead of failing halfway. When `work` or the `COMMIT` throws,
 * the transaction is rolled back (see {@linkcode rollback}) and the same error
 * is thrown. `work` must be synchronous: a promise would be committed before
 * it settled, so one is refused.
 *
 * @example
 * ```ts
 * const id = transaction(db, () => {
 *   const row = insert.run(name);
 *   audit.run(row.lastInsertRowid);
 *   return Number(row.lastInsertRowid);
 * });
 * ```
 */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    if (result instanceof Promise) {
      result.catch(() => {}); // its outcome no longer matters: it is refused
      throw new TypeError(
        "Cannot run a transaction as 'work' must be synchronous: current value is a Promise",
      );
    }
    db.exec("COMMIT");
    return result;
  } catch (error) {
    rollback(db);
    throw error;
  }
}
