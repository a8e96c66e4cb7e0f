/**
 * Telling a full disk, a read-only home or a database another program has
 * locked from other failures, so hob says "cannot write to ~/.hob: the disk
 * is full" instead of SQLite's "disk I/O error" or a stack trace. Knows errors
 * and directories, nothing of what hob stores in them.
 */

// Not node:path: the read-only path (`hob cron list`) reaches this through the stores.
import { inHome } from "./where.ts";

/**
 * Why the home cannot be written: the disk is `full`, it is `read_only` or
 * not ours (`denied`) — or, for now, hob.db is `busy`: another program holds
 * its write lock.
 */
export type StorageProblem = "full" | "read_only" | "denied" | "busy";

/** Bytes the probe writes: room for a few database pages, not just one byte. */
const PROBE_BYTES = 64 * 1024;

/** What to tell the user for each problem. */
const EXPLAINED: Record<StorageProblem, string> = {
  full: "the disk is full — free some space, then try again",
  read_only: "it is read-only — make it writable or use another --home",
  denied: "permission denied — check who owns it and its mode (ls -ld)",
  busy:
    "another program is holding its write lock (a sqlite3 shell in a transaction, a backup tool) — try again in a few seconds",
};

/** OS error codes, as Deno's errors carry them, and what they mean here. */
const OS_CODES: Record<string, StorageProblem> = {
  ENOSPC: "full",
  EDQUOT: "full",
  EROFS: "read_only",
};

/** SQLite's primary result codes (`errcode & 0xff`) that say the problem outright. */
const SQLITE_CODES: Record<number, StorageProblem> = {
  13: "full", // SQLITE_FULL
  8: "read_only", // SQLITE_READONLY
  5: "busy", // SQLITE_BUSY: another connection holds the lock past the busy timeout
};

/** Messages that say the problem outright (OS wording, and SQLite's SQLITE_FULL / SQLITE_READONLY). */
const MESSAGES: [RegExp, StorageProblem][] = [
  [/No space left on device|os error 28\b|Disk quota exceeded|os error 122\b/i, "full"],
  [/database or disk is full/i, "full"],
  [/Read-only file system|os error 30\b/i, "read_only"],
  [/attempt to write a readonly database/i, "read_only"],
  // SQLITE_BUSY as `exec` throws it, without its code.
  [/^database is locked$/i, "busy"],
];

/** SQLite's words for an I/O failure whose cause it does not say: the directory is probed. */
const VAGUE = /disk I\/O error|unable to open database file/i;

/**
 * Raised when hob cannot write to its home; the message names the directory
 * and the problem, and says what to do.
 */
export class StorageError extends Error {
  override name = "StorageError";
  readonly problem: StorageProblem;
  /** The directory that cannot be written; undefined when not known. */
  readonly dir: string | undefined;
  constructor(problem: StorageProblem, dir: string | undefined, options?: ErrorOptions) {
    super(
      problem === "busy"
        ? `${dir === undefined ? "hob.db" : inHome(dir, "hob.db")} is busy: ${EXPLAINED.busy}`
        : dir === undefined
        ? `hob cannot write to its home: ${EXPLAINED[problem]}`
        : `cannot write to ${dir}: ${EXPLAINED[problem]}`,
      options,
    );
    this.problem = problem;
    this.dir = dir;
  }
}

/**
 * The storage problem an error (or any error in its `cause` chain) states
 * outright, without touching the disk; undefined when it states none.
 *
 * @example
 * ```ts
 * storageProblem(new Error("database or disk is full")); // "full"
 * ```
 */
export function storageProblem(error: unknown): StorageProblem | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof StorageError) return e.problem;
    // Deno's sandbox (NotCapable) is a missing --allow flag, not the disk.
    if (e instanceof Deno.errors.NotCapable) return undefined;
    const { code, errcode } = e as { code?: unknown; errcode?: unknown };
    if (typeof code === "string" && Object.hasOwn(OS_CODES, code)) return OS_CODES[code];
    if (typeof errcode === "number" && Object.hasOwn(SQLITE_CODES, errcode & 0xff)) {
      return SQLITE_CODES[errcode & 0xff];
    }
    for (const [pattern, problem] of MESSAGES) if (pattern.test(e.message)) return problem;
  }
  return undefined;
}

/**
 * Writes and removes a small file in `dir` to find out whether it can be
 * written; the problem when it cannot, undefined when it can (or the failure
 * is something else, such as a missing directory).
 *
 * @example
 * ```ts
 * probeStorage("/home/me/.hob"); // "read_only" on a read-only mount
 * ```
 */
export function probeStorage(dir: string): StorageProblem | undefined {
  const probe = inHome(dir, `.hob-probe-${crypto.randomUUID()}`);
  try {
    Deno.writeFileSync(probe, new Uint8Array(PROBE_BYTES));
    return undefined;
  } catch (error) {
    // Only here is "permission denied" known to be about writing to the home.
    if (error instanceof Deno.errors.PermissionDenied) return "denied";
    return storageProblem(error);
  } finally {
    // A write that failed for want of space still leaves the empty file behind.
    try {
      Deno.removeSync(probe);
    } catch { /* never created */ }
  }
}

/**
 * Turns a failure to write under `dir` into a {@linkcode StorageError} when
 * the disk is full, read-only or not ours: from the error itself, else (for
 * SQLite's vague I/O errors) by probing `dir`. Undefined for other failures.
 *
 * @example
 * ```ts
 * try { openDatabase(path); } catch (error) {
 *   throw explainStorage(error, home) ?? error;
 * }
 * ```
 */
export function explainStorage(error: unknown, dir: string): StorageError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof StorageError) return e;
  }
  let problem = storageProblem(error);
  if (!problem && error instanceof Error && VAGUE.test(error.message)) {
    problem = probeStorage(dir);
  }
  return problem ? new StorageError(problem, dir, { cause: error }) : undefined;
}
