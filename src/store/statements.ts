/**
 * Prepared statements, prepared once per SQL text and handle and reused, whose rows are typed
 * where the SQL is written: hob's one way to run SQL with parameters or rows. The one unchecked
 * assumption about what SQLite hands back is made here, once, so no caller casts a row. Knows
 * no table.
 */

import type {
  DatabaseSync,
  SQLInputValue,
  StatementResultingChanges,
  StatementSync,
} from "node:sqlite";

/**
 * A prepared statement whose rows are `Row`, the shape the SQL's columns give
 * (a statement only `run` needs no `Row`).
 */
export interface Statement<Row = unknown> {
  /** The first row, or `undefined` when there is none. */
  get(...params: SQLInputValue[]): Row | undefined;
  /**
   * The first row of a statement that always has one (`COUNT(*)`, a `PRAGMA`); throws when
   * there is none, which is a mistake in the SQL, not a state of the data.
   */
  one(...params: SQLInputValue[]): Row;
  /** Every row. */
  all(...params: SQLInputValue[]): Row[];
  /**
   * The rows one at a time: a long result never held whole. Finish the loop (or break out of
   * it) before the same SQL runs again: the statement is shared, and a run resets it.
   */
  iterate(...params: SQLInputValue[]): IterableIterator<Row>;
  /** Runs a write; `changes` counts the rows it changed. */
  run(...params: SQLInputValue[]): StatementResultingChanges;
}

/** The prepared statement for an SQL text, its rows typed `Row`: what {@linkcode statements} returns. */
export type Sql = <Row = unknown>(text: string) => Statement<Row>;

/** Each handle's statements, one cache per handle however many stores share it. */
const handles = new WeakMap<DatabaseSync, Sql>();

/**
 * The prepared statement for an SQL text on `db`, prepared on first use and kept for the
 * handle's life. `Row` is declared where the SQL is written, beside the columns it names.
 *
 * @example
 * ```ts
 * const sql = statements(db);
 * sql<{ one: number }>("SELECT 1 AS one").one().one; // 1
 * sql<{ id: number }>("SELECT id FROM jobs WHERE name = ?").get("backup")?.id;
 * ```
 */
export function statements(db: DatabaseSync): Sql {
  let sql = handles.get(db);
  if (!sql) {
    sql = cached(db);
    handles.set(db, sql);
  }
  return sql;
}

function cached(db: DatabaseSync): Sql {
  const cache = new Map<string, Statement<unknown>>();
  return function sql<Row>(text: string): Statement<Row> {
    let statement = cache.get(text);
    if (!statement) {
      statement = wrapped(db.prepare(text));
      cache.set(text, statement);
    }
    // The one unchecked assumption about rows in hob, made here once: node:sqlite returns each
    // row as an object (of null prototype) whose keys are the columns the SQL names, holding
    // SQLite's values (INTEGER and REAL as number, TEXT as string, BLOB as Uint8Array, NULL as
    // null). The SQL written beside each `Row` is what makes the type true.
    return statement as Statement<Row>;
  };
}

/** A statement with `one`; bound methods keep each call as cheap as the statement's own. */
function wrapped(prepared: StatementSync): Statement<unknown> {
  const get = prepared.get.bind(prepared);
  return {
    get,
    one(...params) {
      const row = get(...params);
      if (row === undefined) {
        throw new Error(`Cannot read the row of "${prepared.sourceSQL}": it returned none`);
      }
      return row;
    },
    all: prepared.all.bind(prepared),
    iterate: prepared.iterate.bind(prepared),
    run: prepared.run.bind(prepared),
  };
}
