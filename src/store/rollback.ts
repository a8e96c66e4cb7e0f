/**
 * Ending a failed transaction without hiding why it failed. Knows SQLite's
 * habits, nothing of what the transaction held.
 */

import type { DatabaseSync } from "node:sqlite";

/**
 * Rolls back the open transaction, unless SQLite has already done so: after
 * SQLITE_FULL or an I/O error it rolls back by itself, and a second ROLLBACK
 * would throw "cannot rollback - no transaction is active" in place of the
 * real error ("database or disk is full").
 *
 * Transactions are written with `transaction()` (transaction.ts), which
 * calls this; a hand-written one would end like so:
 *
 * @example
 * ```ts
 * try {
 *   insert.run(row);
 *   db.exec("COMMIT");
 * } catch (error) {
 *   rollback(db);
 *   throw error;
 * }
 * ```
 */
export function rollback(db: DatabaseSync): void {
  if (db.isTransaction) db.exec("ROLLBACK");
}
