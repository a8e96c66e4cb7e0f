/**
 * The backup action: make one backup of the home — where asked, or with a
 * dated name in `backup.dir` — record how it went (kept in hob.db, so every
 * process on the home sees the last one), and after a scheduled one delete
 * the oldest until `backup.keep` remain; and the backups' status for
 * `hob status`, `GET /api/status` and the page. Writing the archive is the
 * maker's (src/backup, handed in by the runtime); this knows no archive,
 * no file layout and no wire format.
 */

import { z } from "zod";
import { BackupError } from "../backup/errors.ts";
import type { SqliteKv } from "../store/kv.ts";
import { ActionError, checkInput } from "./errors.ts";

/** The kv key the record of the last backups lives under. */
const BACKUP_KEY = "backup";

/** Left-out files a record names (a workspace's node_modules holds hundreds of links). */
const MAX_SKIPPED_NAMED = 10;

/** An absolute path, on any system hob runs on. */
const ABSOLUTE = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

/**
 * A backup: `file`, an absolute path that must not exist (by default a dated
 * name in `backup.dir`), and whether the API token and hob.yaml's secrets go
 * in (by default `backup.with_secrets`, itself off).
 */
export const backupInput = z.strictObject({
  file: z.string().min(1).regex(ABSOLUTE, { message: "expected an absolute path" }).optional(),
  with_secrets: z.boolean().optional(),
});

export type BackupInput = z.input<typeof backupInput>;

/**
 * What the API and the page may choose: not the file — the server writes
 * only into `backup.dir`, so a token cannot write a file anywhere hob can.
 */
export const backupBody = backupInput.pick({ with_secrets: true });

/** One backup, made or failed. */
export interface BackupRecord {
  /** When it started (ISO 8601). */
  at: string;
  ok: boolean;
  /** Made by the schedule (`backup.every`), not asked for. */
  scheduled: boolean;
  file: string | null;
  /** The archive's size. */
  bytes: number | null;
  files: number | null;
  ms: number;
  with_secrets: boolean;
  error: string | null;
  /** hob.yaml's keys whose values were left out (none with `with_secrets`). */
  redacted: string[];
  /** How many files were found but left out (links, files that vanished)… */
  skipped_count: number;
  /** …and the first few of them, with why. */
  skipped: { path: string; why: string }[];
  /** Older backups deleted after this one, to keep `backup.keep`. */
  pruned: string[];
}

/** The backups of a home, as the status shows them. */
export interface BackupStatus {
  /** `backup.every`, or null: none is scheduled. */
  every: string | null;
  keep: number;
  dir: string;
  /** When the next scheduled one is due, while `hob serve` runs; else null. */
  next: string | null;
  /** Whether this process is making one now. */
  running: boolean;
  /** The last backup tried, made or failed. */
  last: BackupRecord | null;
  /** The last one made. */
  last_ok: BackupRecord | null;
}

/** An archive written: where, its size, how many files, how long it took. */
export interface MadeArchive {
  file: string;
  bytes: number;
  files: number;
  ms: number;
  redacted: string[];
  skipped: { path: string; why: string }[];
}

/** What writes and prunes the archives (src/backup, through the runtime). */
export interface BackupMaker {
  make(options: { file?: string; withSecrets: boolean }): Promise<MadeArchive>;
  /** Deletes the oldest backups in `backup.dir` until `keep` remain; returns their names. */
  prune(keep: number): Promise<string[]>;
}

/** What the backup action works on. */
export interface BackupActionsDeps {
  maker: BackupMaker;
  kv: Pick<SqliteKv, "read" | "write">;
  settings: { every: string | null; keep: number; dir: string; with_secrets: boolean };
  /** When the next scheduled backup is due, or null. */
  next(): string | null;
  now(): Date;
}

/** The backup action. */
export interface BackupActions {
  /** Makes a backup and records it; `scheduled` ones prune the folder after. */
  make(input?: BackupInput, options?: { scheduled?: boolean }): Promise<BackupRecord>;
  status(): BackupStatus;
}

/** The last backups, as kept in hob.db. */
interface LastBackups {
  last: BackupRecord | null;
  last_ok: BackupRecord | null;
}

/**
 * The backup action over a maker and the kv table.
 *
 * @example
 * ```ts
 * const backups = createBackupActions({ maker, kv, settings, next: () => null, now: () => new Date() });
 * (await backups.make({ file: "/mnt/usb/hob.tar.gz" })).bytes; // 81234
 * ```
 */
export function createBackupActions(deps: BackupActionsDeps): BackupActions {
  const { settings } = deps;
  let running = false;
  const lastBackups = (): LastBackups => ({
    last: null,
    last_ok: null,
    ...deps.kv.read(BACKUP_KEY),
  });
  return {
    async make(input = {}, options = {}) {
      const { file, with_secrets = settings.with_secrets } = checkInput(backupInput, input);
      if (running) {
        throw new ActionError("busy", "A backup is being made now — try again when it is done");
      }
      running = true;
      const at = deps.now();
      const scheduled = options.scheduled ?? false;
      const record = (fields: Partial<BackupRecord>): BackupRecord => {
        const done: BackupRecord = {
          at: at.toISOString(),
          ok: false,
          scheduled,
          file: null,
          bytes: null,
          files: null,
          ms: deps.now().getTime() - at.getTime(),
          with_secrets,
          error: null,
          redacted: [],
          skipped_count: 0,
          skipped: [],
          pruned: [],
          ...fields,
        };
        const before = lastBackups();
        deps.kv.write(BACKUP_KEY, { last: done, last_ok: done.ok ? done : before.last_ok });
        return done;
      };
      try {
        const made = await deps.maker.make({ file, withSecrets: with_secrets });
        const pruned = scheduled ? await deps.maker.prune(settings.keep) : [];
        const { bytes, files, ms, redacted, skipped } = made;
        return record({
          ok: true,
          file: made.file,
          bytes,
          files,
          ms,
          redacted,
          skipped_count: skipped.length,
          skipped: skipped.slice(0, MAX_SKIPPED_NAMED),
          pruned,
        });
      } catch (error) {
        record({ file: file ?? null, error: (error as Error).message });
        throw refusal(error);
      } finally {
        running = false;
      }
    },
    status: () => ({
      every: settings.every,
      keep: settings.keep,
      dir: settings.dir,
      next: deps.next(),
      running,
      ...lastBackups(),
    }),
  };
}

/** A maker's refusal as the action's; anything else as it came. */
function refusal(error: unknown): unknown {
  if (!(error instanceof BackupError)) return error;
  if (error.problem === "exists") {
    return new ActionError("conflict", error.message, { field: "file", cause: error });
  }
  if (error.problem === "not_found") {
    return new ActionError("invalid", error.message, { field: "file", cause: error });
  }
  return error;
}
