/**
 * A database brought back from a backup, made ready to be a home's hob.db:
 * checked, migrated to this build's schema, and freed from the processes
 * that were using it when the copy was taken — their claims would otherwise
 * look alive while those processes (the original `hob serve`, still running
 * on the original home perhaps) carry on elsewhere. Knows the tables that
 * hold an owner; nothing of archives or of the files around the database.
 */

import { DatabaseSync } from "node:sqlite";
import { openDatabase, StoreError } from "./database.ts";
import { userVersion } from "./migrations.ts";
import { statements } from "./statements.ts";
import { SqliteKv } from "./kv.ts";
import { ServerRecord } from "./server_record.ts";
import { timestamp } from "./timestamp.ts";
import { transaction } from "./transaction.ts";

/**
 * An owner no process has (pid 0): a job or task held by it is recovered by
 * the stores' own sweeps at the next start, with their usual policies.
 */
const NO_PROCESS = "0:restored";

/** What {@linkcode prepareRestoredDatabase} found and did. */
export interface RestoredDatabase {
  /** The schema version the copy had, and the one it has now. */
  from_version: number;
  to_version: number;
  /** `PRAGMA integrity_check` after the migration: `"ok"`. */
  integrity: string;
  /** Replies that were being streamed when the copy was taken, now marked interrupted. */
  interrupted: number;
}

/**
 * Checks the database at `path`, migrates it and frees it from the processes
 * that used it. Throws a StoreError naming the problem when SQLite finds it
 * damaged, before or after.
 *
 * @example
 * ```ts
 * const { from_version, to_version } = prepareRestoredDatabase(`${staging}/hob.db`);
 * ```
 */
export function prepareRestoredDatabase(path: string): RestoredDatabase {
  const from_version = checkCopy(path);
  // The archive itself is the copy from before the migration.
  const db = openDatabase(path, { backupBeforeMigrate: false });
  try {
    const interrupted = transaction(db, () => detach(db));
    const integrity = integrityOf(db);
    if (integrity !== "ok") {
      throw new StoreError(`The restored database fails its integrity check: ${integrity}`, path);
    }
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return { from_version, to_version: userVersion(db), integrity, interrupted };
  } finally {
    db.close();
  }
}

/** The copy's schema version, once SQLite has read it whole and found nothing wrong. */
function checkCopy(path: string): number {
  let db: DatabaseSync | undefined;
  let problem: string;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    const version = userVersion(db);
    problem = integrityOf(db);
    if (problem === "ok") return version;
  } catch (error) {
    problem = (error as Error).message;
  } finally {
    db?.close();
  }
  throw new StoreError(`The database in the backup is damaged: ${problem}`, path);
}

/** Frees the rows that name a process as theirs; returns the replies marked interrupted. */
function detach(db: DatabaseSync): number {
  const sql = statements(db);
  const replies = sql(
    "UPDATE messages SET status = 'interrupted', owner = NULL WHERE status = 'streaming'",
  ).run();
  sql(
    "UPDATE approvals SET status = 'expired', decided_at = ? WHERE status = 'pending'",
  ).run(timestamp());
  sql("UPDATE jobs SET running_owner = ? WHERE running_owner IS NOT NULL").run(NO_PROCESS);
  sql("UPDATE tasks SET claimed_by = ? WHERE claimed_by IS NOT NULL").run(NO_PROCESS);
  db.exec("DELETE FROM workers");
  // Where the original hob serve listened: this home has no server yet.
  new ServerRecord(new SqliteKv(db)).clear();
  return Number(replies.changes);
}

/** `PRAGMA integrity_check`'s findings in one line: `"ok"` when there are none. */
function integrityOf(db: DatabaseSync): string {
  const rows = statements(db)<{ integrity_check: string }>("PRAGMA integrity_check").all();
  return rows.map((row) => row.integrity_check).join("; ");
}
