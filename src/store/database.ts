/**
 * Opening hob.db: pragmas, migrations and the crash-recovery sweep. The one
 * place that knows the database file; the stores in this folder take the open
 * handle. Knows nothing of HTTP, the agent or providers.
 */

import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";
import { explainStorage } from "../home/storage.ts";
import { type Migration, MIGRATIONS, userVersion } from "./migrations.ts";
import { BUSY_TIMEOUT_MS, transaction } from "./transaction.ts";
import { statements } from "./statements.ts";

/**
 * SQLite's wait for another process's write lock while migrating: long, as
 * the process serves nothing yet, and two hob commands started at once must
 * not fail for it.
 */
const MIGRATION_BUSY_TIMEOUT_MS = 5_000;

/** Raised when hob.db cannot be opened or migrated; the message says what to do. */
export class StoreError extends Error {
  override name = "StoreError";
  readonly path: string;
  constructor(message: string, path: string, options?: ErrorOptions) {
    super(message, options);
    this.path = path;
  }
}

/** Options for {@linkcode openDatabase}. */
export interface OpenDatabaseOptions {
  /**
   * Copy an existing database aside (`<path>.backup-v<N>`) before migrating it.
   * @default {true}
   */
  backupBeforeMigrate?: boolean;
  /** The migrations to apply; tests pass their own. */
  migrations?: readonly Migration[];
}

/**
 * Opens (creating if needed) a hob database with WAL, foreign keys and a
 * short busy timeout (`BUSY_TIMEOUT_MS`: longer waits for the lock are
 * `withWriteLock`'s, which do not block), and applies pending migrations,
 * each in one transaction. A full disk, a directory that cannot be written or
 * a lock another program holds is a `StorageError` naming it.
 *
 * @example
 * ```ts
 * const db = openDatabase(`${home}/hob.db`);
 * ```
 */
export function openDatabase(
  path: string,
  options: OpenDatabaseOptions = {},
): DatabaseSync {
  const { backupBeforeMigrate = true, migrations = MIGRATIONS } = options;
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
  } catch (error) {
    db?.close();
    throw explainStorage(error, dirname(path)) ?? new StoreError(
      `Cannot open the database ${path}: ${messageOf(error)} — is the home directory writable?`,
      path,
      { cause: error },
    );
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${MIGRATION_BUSY_TIMEOUT_MS}`);
    migrate(db, path, migrations, backupBeforeMigrate);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (error) {
    db.close();
    const storage = explainStorage(error, dirname(path));
    if (storage) throw storage;
    if (error instanceof StoreError) throw error;
    throw new StoreError(
      `Cannot migrate the database ${path}: ${messageOf(error)}`,
      path,
      { cause: error },
    );
  }
  return db;
}

export { SCHEMA_VERSION } from "./migrations.ts";

/**
 * Applies one migration in its own write transaction, unless the database is
 * at its version already: another process opening the same home (two `hob`
 * commands started at once) may have applied it while this one waited for
 * the lock, after both read the version.
 *
 * @example
 * ```ts
 * applyMigration(db, MIGRATIONS[0]); // a no-op when another handle got there first
 * ```
 */
export function applyMigration(db: DatabaseSync, migration: Migration): void {
  // The pragma is a no-op inside a transaction: it is set around it.
  if (migration.rebuildsTables) db.exec("PRAGMA foreign_keys = OFF");
  try {
    transaction(db, () => {
      if (userVersion(db) >= migration.version) return;
      db.exec(migration.sql);
      if (migration.rebuildsTables) {
        const broken = statements(db)("PRAGMA foreign_key_check").all();
        if (broken.length > 0) {
          throw new Error(`it would leave ${broken.length} row(s) referring to rows that are gone`);
        }
      }
      db.exec(`PRAGMA user_version = ${migration.version}`);
    });
  } finally {
    if (migration.rebuildsTables) db.exec("PRAGMA foreign_keys = ON");
  }
}

function migrate(
  db: DatabaseSync,
  path: string,
  migrations: readonly Migration[],
  backup: boolean,
): void {
  const current = userVersion(db);
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new StoreError(
      `The database ${path} has schema version ${current}, newer than this hob knows (${latest}) — upgrade hob`,
      path,
    );
  }
  const pending = migrations.filter((m) => m.version > current);
  if (pending.length === 0) return;
  if (backup && current > 0) backupFile(db, path, `${path}.backup-v${current}`);
  for (const migration of pending) {
    try {
      applyMigration(db, migration);
    } catch (error) {
      throw new StoreError(
        `Migration ${migration.version} (${migration.name}) failed: ${messageOf(error)}`,
        path,
        { cause: error },
      );
    }
  }
}

/**
 * Copies the database file before a migration. VACUUM INTO would be simpler,
 * but it ATTACHes the target, which Deno's SQLite refuses without
 * --allow-all. So: checkpoint the WAL into the file, hold a read transaction
 * (no later checkpoint can then change the pages it reads), copy the file.
 */
function backupFile(db: DatabaseSync, path: string, target: string): void {
  const result = statements(db)<{ busy: number; log: number; checkpointed: number }>(
    "PRAGMA wal_checkpoint(TRUNCATE)",
  ).one();
  if (result.busy !== 0 || result.log !== result.checkpointed) {
    throw new StoreError(
      `Cannot back up ${path} before migrating it: another hob process is using it — stop it and start again`,
      path,
    );
  }
  db.exec("BEGIN");
  try {
    statements(db)("SELECT COUNT(*) FROM sqlite_master").get();
    Deno.copyFileSync(path, target);
  } finally {
    db.exec("COMMIT");
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
