/**
 * Bringing a backup back as a home: never over a home in use or one that
 * holds something (unless told, and then what was there is moved aside, not
 * deleted); the archive read into a directory beside the home, checked
 * against its manifest, its database checked by SQLite, migrated to this
 * build's schema and freed from the processes that used it; the files hob
 * makes by itself (a new API token, when the backup had none) made; and only
 * then the directory renamed into place — so a restore that fails leaves the
 * home as it was.
 */

import { basename, dirname, join } from "node:path";
import { ensureHome } from "../home/home.ts";
import { isLiveOwner } from "../store/owner.ts";
import { SCHEMA_VERSION } from "../store/migrations.ts";
import { prepareRestoredDatabase } from "../store/restored.ts";
import { readLiveWorkers, readServerRecord } from "../store/server_record.ts";
import { extractArchive } from "./archive_read.ts";
import { BackupError } from "./errors.ts";
import type { Manifest } from "./manifest.ts";

/** Options for {@linkcode restoreBackup}. */
export interface RestoreOptions {
  /** The archive. */
  file: string;
  /** The home to bring it back as (absolute). */
  home: string;
  /** Restore over a home that holds something, moving it aside first. */
  force: boolean;
}

/** What {@linkcode restoreBackup} brought back. */
export interface Restored {
  home: string;
  file: string;
  /** When the backup was taken, and by which hob. */
  created_at: string;
  hob_version: string;
  files: number;
  bytes: number;
  /** The database's schema version in the backup, and now. */
  schema: { from: number; to: number };
  /** `PRAGMA integrity_check` of the restored database: `"ok"`. */
  integrity: string;
  /** Replies being streamed when the backup was taken, kept as interrupted. */
  interrupted: number;
  /** Whether the backup held the API token and hob.yaml's secrets. */
  secrets: boolean;
  /** hob.yaml's keys that hold `<redacted>` and want their values again. */
  redacted: string[];
  /** Whether a new API token was made (the backup had none). */
  new_token: boolean;
  /** Where what was in the home before went (with `force`), or null. */
  moved_aside: string | null;
}

/**
 * Restores the backup `file` as the home `home`.
 *
 * @example
 * ```ts
 * const restored = await restoreBackup({ file, home: "/home/me/.hob", force: false });
 * ```
 */
export async function restoreBackup(options: RestoreOptions): Promise<Restored> {
  const { file, home } = options;
  const holds = await checkTarget(home, options.force);
  await Deno.mkdir(dirname(home), { recursive: true });
  const staging = join(
    dirname(home),
    `.${basename(home)}.restoring-${crypto.randomUUID().slice(0, 8)}`,
  );
  await Deno.mkdir(staging, { mode: 0o700 });
  try {
    const { manifest, files } = await extractArchive(file, staging);
    const database = prepareDatabase(manifest, staging, file);
    const { created } = await ensureHome(staging);
    const moved_aside = holds ? await moveAside(home) : null;
    if (!holds) await Deno.remove(home).catch(() => {});
    await Deno.rename(staging, home);
    return {
      home,
      file,
      created_at: manifest.created_at,
      hob_version: manifest.hob_version,
      files: files.size,
      bytes: [...files.values()].reduce((sum, f) => sum + f.bytes, 0),
      schema: { from: database.from_version, to: database.to_version },
      integrity: database.integrity,
      interrupted: database.interrupted,
      secrets: manifest.secrets,
      redacted: manifest.redacted,
      new_token: created.includes("token"),
      moved_aside,
    };
  } catch (error) {
    await Deno.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  }
}

/**
 * Refuses a home a hob process uses, and one that holds something unless
 * `force`; true when it holds something (to be moved aside).
 */
async function checkTarget(home: string, force: boolean): Promise<boolean> {
  const server = readServerRecord(join(home, "hob.db"));
  if (server && isLiveOwner(server.owner)) {
    throw new BackupError(
      "in_use",
      `hob serve (pid ${server.pid}) is running on ${home} — stop it, then restore`,
      home,
    );
  }
  const [worker] = readLiveWorkers(join(home, "hob.db"));
  if (worker) {
    throw new BackupError(
      "in_use",
      `hob ${worker.kind} (pid ${worker.pid}) runs tasks on ${home} — stop it, then restore`,
      home,
    );
  }
  let holds = false;
  try {
    for await (const _ of Deno.readDir(home)) {
      holds = true;
      break;
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  if (holds && !force) {
    throw new BackupError(
      "not_empty",
      `${home} is not empty — restore into a new directory, or add --force to move what is there aside first`,
      home,
    );
  }
  return holds;
}

/** The restored database checked, migrated and freed; a BackupError when it cannot be. */
function prepareDatabase(manifest: Manifest, staging: string, file: string) {
  if (manifest.schema_version > SCHEMA_VERSION) {
    throw new BackupError(
      "newer",
      `${file} was made by hob ${manifest.hob_version}, whose database (schema ${manifest.schema_version}) is newer than this hob's (${SCHEMA_VERSION}) — upgrade hob, then restore`,
      file,
    );
  }
  if (!manifest.files.some((entry) => entry.path === "hob.db")) {
    throw new BackupError("damaged", `${file} holds no hob.db — not a hob backup`, file);
  }
  try {
    return prepareRestoredDatabase(join(staging, "hob.db"));
  } catch (error) {
    throw new BackupError("damaged", `${file}: ${(error as Error).message}`, file, {
      cause: error,
    });
  }
}

/** Moves what is in `home` to a dated name beside it; returns where. */
async function moveAside(home: string): Promise<string> {
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "-");
  const aside = `${home}.before-restore-${stamp}Z`;
  await Deno.rename(home, aside);
  return aside;
}
