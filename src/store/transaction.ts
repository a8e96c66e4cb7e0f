/**
 * The one way hob writes a transaction: `BEGIN IMMEDIATE`, the work, `COMMIT`
 * — or, when anything throws, a rollback that keeps the real error. And the
 * wait for the write lock while another program (a `sqlite3` shell, a backup
 * tool, a second hob) holds it: node:sqlite is synchronous, so SQLite's own
 * wait (`busy_timeout`) stops the whole process; it is kept short, and the
 * wait beyond it happens here, on timers, while the event loop runs on.
 * Knows SQLite's locking, nothing of what the work writes.
 */

import type { DatabaseSync } from "node:sqlite";
import { statements } from "./statements.ts";
import { StorageError, storageProblem } from "../home/storage.ts";
import { rollback } from "./rollback.ts";

/**
 * SQLite's own wait for another connection's write lock (`busy_timeout`). It
 * blocks the event loop — every request, every stream — so it covers only
 * another hob's usual transaction (a few ms); longer waits are
 * {@linkcode withWriteLock}'s.
 */
export const BUSY_TIMEOUT_MS = 50;

/** How long a request waits for the lock before it is answered 503: a person is waiting. */
export const REQUEST_LOCK_WAIT_MS = 3_000;

/**
 * How long work no one waits on — a turn saving its reply, a job's run log, a
 * task, the memory index — waits for the lock before it fails: long, so a
 * lock held for minutes loses nothing.
 */
export const WORK_LOCK_WAIT_MS = 5 * 60_000;

/** The first pause between tries for the lock; each pause doubles up to the longest. */
const FIRST_TRY_MS = 10;
/** The longest pause between tries: the lock is taken within this of its release. */
const LONGEST_TRY_MS = 250;

/**
 * Runs `work` in one write transaction and returns what it returns. The write
 * lock is taken at `BEGIN IMMEDIATE`, so a second writer waits (briefly:
 * {@linkcode BUSY_TIMEOUT_MS}) at the start instead of failing halfway. When
 * `work` or the `COMMIT` throws, the transaction is rolled back (see
 * {@linkcode rollback}) and the same error is thrown. Inside another
 * transaction it is a savepoint of it: rolled back alone, committed with it.
 * `work` must be synchronous: a promise would be committed before it
 * settled, so one is refused. Code that may wait takes
 * {@linkcode withWriteLock} instead.
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
  if (db.isTransaction) return savepoint(db, work);
  db.exec("BEGIN IMMEDIATE");
  return commitOrRollBack(db, work);
}

/** Options for {@linkcode withWriteLock}. */
export interface WriteLockOptions {
  /**
   * How long to wait for another program to release the write lock; past it
   * the promise rejects with a `StorageError` whose problem is `busy`.
   * @default {WORK_LOCK_WAIT_MS}
   */
  waitMs?: number;
  /** Stops the wait (its reason is thrown); the work then never runs. */
  signal?: AbortSignal;
}

/**
 * Runs `work` — synchronous writes — in one write transaction once the write
 * lock is had, and resolves with what it returns. While another program holds
 * the lock this waits on timers, not in SQLite, so the event loop runs on; one
 * try per handle at a time, backing off with jitter. `work` runs once, after
 * the lock is taken, or not at all (a `busy` `StorageError` after `waitMs`),
 * and commits or rolls back whole, as in {@linkcode transaction}.
 *
 * @example
 * ```ts
 * const message = await withWriteLock(db, () => store.addMessage(reply), { waitMs: 60_000 });
 * ```
 */
export async function withWriteLock<T>(
  db: DatabaseSync,
  work: () => T,
  options: WriteLockOptions = {},
): Promise<T> {
  const { waitMs = WORK_LOCK_WAIT_MS, signal } = options;
  if (!(waitMs >= 0)) {
    throw new RangeError(
      `Cannot wait for the write lock as 'waitMs' must be a number >= 0: current value is ${waitMs}`,
    );
  }
  // Called from inside a transaction of this handle: the lock is had already.
  if (db.isTransaction) return savepoint(db, work);
  const deadline = performance.now() + waitMs;
  for (;;) {
    signal?.throwIfAborted();
    // While a try is pending the lock is known to be held: wait for it, do not block on it.
    if (!tries.has(db) && begin(db)) return commitOrRollBack(db, work);
    await nextChance(db, deadline, signal);
  }
}

/**
 * Ends every wait for `db`'s write lock, now and from now on: each fails as
 * busy at once, so closing a home is not held up by another program's lock.
 *
 * @example
 * ```ts
 * setTimeout(() => stopWaiting(db), 5_000); // what is not saved by then is not waited for
 * ```
 */
export function stopWaiting(db: DatabaseSync): void {
  stopped.add(db);
  const pending = tries.get(db);
  tries.delete(db);
  pending?.settle.reject(busyError());
}

/** The pending tries for each handle's lock: one timer however many wait. */
const tries = new WeakMap<DatabaseSync, Tries>();
/** Handles whose waits {@linkcode stopWaiting} ended. */
const stopped = new WeakSet<DatabaseSync>();

interface Tries {
  /** Resolves when a try took the lock (and let it go again); rejects when a try failed otherwise. */
  got: Promise<void>;
  settle: { resolve: () => void; reject: (error: unknown) => void };
  /** How many are waiting; the tries stop when none is. */
  waiting: number;
}

/** Waits until the lock was free a moment ago, or throws `busy` at the deadline (or the abort). */
async function nextChance(db: DatabaseSync, deadline: number, signal?: AbortSignal): Promise<void> {
  const left = deadline - performance.now();
  if (left <= 0 || stopped.has(db)) throw busyError();
  const pending = tries.get(db) ?? startTries(db);
  pending.waiting++;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      pending.got,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(busyError()), left);
        onAbort = () => reject(signal!.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    pending.waiting--;
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * Tries the lock on a timer, backing off with jitter (two processes that
 * wait do not keep colliding), without SQLite's wait: a try never blocks.
 */
function startTries(db: DatabaseSync): Tries {
  let settle!: Tries["settle"];
  const got = new Promise<void>((resolve, reject) => settle = { resolve, reject });
  got.catch(() => {}); // a waiter that left does not make it unhandled
  const pending: Tries = { got, settle, waiting: 0 };
  tries.set(db, pending);
  let pause = FIRST_TRY_MS;
  const tryOnce = () => {
    if (tries.get(db) !== pending) return; // stopped
    try {
      if (pending.waiting === 0 || tryWithoutWaiting(db)) {
        tries.delete(db);
        settle.resolve();
        return;
      }
    } catch (error) {
      tries.delete(db);
      settle.reject(error);
      return;
    }
    pause = Math.min(LONGEST_TRY_MS, pause * 2);
    setTimeout(tryOnce, pause * (0.5 + Math.random()));
  };
  setTimeout(tryOnce, pause * (0.5 + Math.random()));
  return pending;
}

/** Takes and lets go of the lock with SQLite's wait off; false when another holds it. */
function tryWithoutWaiting(db: DatabaseSync): boolean {
  const { timeout } = statements(db)<{ timeout: number }>("PRAGMA busy_timeout").one();
  db.exec("PRAGMA busy_timeout = 0");
  try {
    if (!begin(db)) return false;
    db.exec("COMMIT");
    return true;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${timeout}`);
  }
}

/** `BEGIN IMMEDIATE`; false when another connection holds the lock past SQLite's wait. */
function begin(db: DatabaseSync): boolean {
  try {
    // Prepared once per handle (every write of a streaming reply begins one), not exec'd: only a
    // statement's error carries SQLite's code.
    statements(db)("BEGIN IMMEDIATE").run();
    return true;
  } catch (error) {
    if (storageProblem(error) === "busy") return false;
    throw error;
  }
}

function busyError(): StorageError {
  return new StorageError("busy", undefined);
}

/** The work of an open transaction, committed, or rolled back when it throws. */
function commitOrRollBack<T>(db: DatabaseSync, work: () => T): T {
  try {
    const result = synchronously(work());
    db.exec("COMMIT");
    return result;
  } catch (error) {
    rollback(db);
    throw error;
  }
}

let savepoints = 0;

/** The work as a savepoint of the transaction already open. */
function savepoint<T>(db: DatabaseSync, work: () => T): T {
  const name = `hob_${++savepoints}`;
  db.exec(`SAVEPOINT ${name}`);
  try {
    const result = synchronously(work());
    db.exec(`RELEASE ${name}`);
    return result;
  } catch (error) {
    // SQLite may have rolled the whole transaction back itself (a full disk).
    if (db.isTransaction) {
      db.exec(`ROLLBACK TO ${name}`);
      db.exec(`RELEASE ${name}`);
    }
    throw error;
  }
}

/** The work's result, unless it is a promise, which is refused. */
function synchronously<T>(result: T): T {
  if (result instanceof Promise) {
    result.catch(() => {}); // its outcome no longer matters: it is refused
    throw new TypeError(
      "Cannot run a transaction as 'work' must be synchronous: current value is a Promise",
    );
  }
  return result;
}
