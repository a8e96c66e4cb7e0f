/**
 * Making one backup of a home while hob may be running on it: the database
 * copied by SQLite's online backup (consistent at one moment, whatever is
 * being written), then every other file the backup holds (contents.ts),
 * hob.yaml without its secrets unless asked, and the manifest, into one
 * `.tar.gz`. Files are read as they are when reached: memory files are
 * replaced whole, so each is one version of itself.
 */

import { dirname, join, resolve } from "node:path";
import { snapshotDatabase } from "../store/snapshot.ts";
import { VERSION } from "../version.ts";
import { type ArchiveWriter, createArchive } from "./archive_write.ts";
import { configWithoutSecrets } from "./config_secrets.ts";
import { type HomeContents, homeContents } from "./contents.ts";
import { BackupError } from "./errors.ts";
import { backupName } from "./folder.ts";
import { BACKUP_FORMAT, FORMAT_VERSION, type Manifest, type ManifestFile } from "./manifest.ts";

/** Backups taken in one second that get a name of their own (`-2`…) before giving up. */
const MAX_NAME_ATTEMPTS = 20;

/** Options for {@linkcode makeBackup}. */
export interface MakeBackupOptions {
  home: string;
  /** The archive to write; by default a dated name in `dir`. */
  file?: string;
  /** The backups' folder (created when missing), left out of the backup. */
  dir: string;
  /** Put the API token and hob.yaml's secrets in. */
  withSecrets: boolean;
  now?: () => Date;
}

/** What {@linkcode makeBackup} wrote. */
export interface MadeBackup {
  file: string;
  /** The archive's size. */
  bytes: number;
  /** The size of what it holds, before compression. */
  home_bytes: number;
  files: number;
  ms: number;
  with_secrets: boolean;
  schema_version: number;
  /** hob.yaml's keys whose values were left out. */
  redacted: string[];
  /** What was found but not taken, and why. */
  skipped: { path: string; why: string }[];
}

/**
 * Writes a backup of `home`.
 *
 * @example
 * ```ts
 * const made = await makeBackup({ home, dir: `${home}/backups`, withSecrets: false });
 * console.log(`${made.file}: ${made.bytes} bytes`);
 * ```
 */
export async function makeBackup(options: MakeBackupOptions): Promise<MadeBackup> {
  const { home, withSecrets } = options;
  const now = options.now ?? (() => new Date());
  const started = performance.now();
  const createdAt = now();
  const { file, archive } = await openTarget(options, createdAt);
  const snapshot = join(dirname(file), `.hob-backup-db-${crypto.randomUUID().slice(0, 8)}`);
  try {
    const database = await snapshotDatabase(join(home, "hob.db"), snapshot);
    const contents = await homeContents(home, {
      withSecrets,
      leaveOut: [resolve(options.dir), file, snapshot],
    });
    const written = await writeFiles(archive, home, contents, snapshot, withSecrets);
    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      format_version: FORMAT_VERSION,
      hob_version: VERSION,
      schema_version: database.schema_version,
      created_at: createdAt.toISOString(),
      home,
      secrets: withSecrets,
      redacted: written.redacted,
      database: { integrity: database.integrity },
      files: written.files,
      dirs: contents.dirs,
      skipped: [...contents.skipped, ...written.skipped],
      changed: written.changed,
    };
    const bytes = await archive.finish(manifest);
    return {
      file,
      bytes,
      home_bytes: written.files.reduce((sum, f) => sum + f.bytes, 0),
      files: written.files.length,
      ms: Math.round(performance.now() - started),
      with_secrets: withSecrets,
      schema_version: database.schema_version,
      redacted: written.redacted,
      skipped: manifest.skipped,
    };
  } catch (error) {
    await archive.abort();
    throw error;
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) {
      await Deno.remove(`${snapshot}${suffix}`).catch(() => {});
    }
  }
}

/** The archive to write: the file asked for, or a new dated name in the folder. */
async function openTarget(
  options: MakeBackupOptions,
  at: Date,
): Promise<{ file: string; archive: ArchiveWriter }> {
  if (options.file) return { file: options.file, archive: await createArchive(options.file) };
  await Deno.mkdir(options.dir, { recursive: true, mode: 0o700 });
  for (let attempt = 1;; attempt++) {
    const file = join(options.dir, backupName(at, attempt));
    try {
      return { file, archive: await createArchive(file) };
    } catch (error) {
      if (!(error instanceof BackupError && error.problem === "exists")) throw error;
      if (attempt >= MAX_NAME_ATTEMPTS) throw error;
    }
  }
}

/** What {@linkcode writeFiles} put in. */
interface Written {
  files: ManifestFile[];
  skipped: { path: string; why: string }[];
  changed: string[];
  redacted: string[];
}

/** The database copy, the directories and the files, into the archive. */
async function writeFiles(
  archive: ArchiveWriter,
  home: string,
  contents: HomeContents,
  snapshot: string,
  withSecrets: boolean,
): Promise<Written> {
  const written: Written = { files: [], skipped: [], changed: [], redacted: [] };
  const db = await archive.addFile("hob.db", snapshot);
  if (!db) throw new Error("the database copy vanished before it was archived");
  written.files.push(strip(db));
  for (const dir of contents.dirs) await archive.addDir(dir);
  for (const path of contents.files) {
    try {
      if (path === "hob.yaml" && !withSecrets) await addConfig(archive, home, written);
      else {
        const added = await archive.addFile(path, join(home, path));
        if (!added) throw new Deno.errors.NotFound(path);
        if (added.changed) written.changed.push(path);
        written.files.push(strip(added));
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      written.skipped.push({ path, why: "deleted while the backup was made" });
    }
  }
  return written;
}

/** hob.yaml without its secrets; left out when they cannot be told apart (not YAML). */
async function addConfig(archive: ArchiveWriter, home: string, written: Written): Promise<void> {
  const config = configWithoutSecrets(await Deno.readTextFile(join(home, "hob.yaml")));
  if (!config) {
    written.skipped.push({
      path: "hob.yaml",
      why: "not valid YAML, so its secrets could not be told apart (--with-secrets takes it)",
    });
    return;
  }
  written.redacted = config.redacted;
  written.files.push(await archive.addBytes("hob.yaml", new TextEncoder().encode(config.text)));
}

function strip({ path, bytes, sha256 }: ManifestFile): ManifestFile {
  return { path, bytes, sha256 };
}
