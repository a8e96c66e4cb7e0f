/** Prepared statements, prepared once per SQL text and reused: the stores' one way to run SQL. */

import type { DatabaseSync, StatementSync } from "node:sqlite";

/**
 * A function that returns the prepared statement for `sql`, preparing it on first use.
 *
 * @example
 * ```ts
 * const sql = statements(db);
 * sql("SELECT 1 AS one").get(); // { one: 1 }
 * ```
 */
export function statements(db: DatabaseSync): (sql: string) => StatementSync {
  const cache = new Map<string, StatementSync>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      cache.set(sql, statement);
    }
    return statement;
  };
}
