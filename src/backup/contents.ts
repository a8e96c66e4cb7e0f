/**
 * Which of a home's files a backup holds: everything in it — hob.yaml, the
 * identity files, memory, skills, tools, uploads, the workspace, files the
 * owner put there — but the database (copied by SQLite instead), what hob
 * makes again by itself, the backups themselves, and, unless asked, the API
 * token. Links and devices are listed as skipped, never followed. Knows the
 * names hob gives its own passing files; nothing of what the rest mean.
 */

import { join } from "node:path";

/** Files at the top of the home a backup leaves out, and why (for the reader of this file). */
const TOP_LEFT_OUT: Record<string, string> = {
  "hob.db": "copied by SQLite's online backup, consistent at one moment",
  "hob.db-wal": "part of hob.db, inside the copy",
  "hob.db-shm": "part of hob.db, inside the copy",
  "hob.db-journal": "part of hob.db, inside the copy",
  ".cache": "what hob works out again at its next start",
};

/** The API token: a secret, in a backup only when asked. */
export const TOKEN_FILE = "token";

/**
 * Passing files anywhere in the home: the write lock and half-written files
 * of memory writes, hob.yaml's while it is rewritten, the storage probe, the
 * copies hob makes before a migration.
 */
const PASSING = [
  /^\.write\.lock$/,
  /^\.memory-write-.*\.tmp$/,
  /^hob\.yaml\..*\.tmp$/,
  /^\.hob-probe-/,
  /^hob\.db\.backup-v\d+$/,
  /^\.hob-backup-db-/,
];

/** What a backup of a home holds. */
export interface HomeContents {
  /** Directories, relative to the home with `/`, each before what it holds. */
  dirs: string[];
  /** Files, relative to the home with `/`, in the order found (sorted by name). */
  files: string[];
  /** What was found but not taken, and why. */
  skipped: { path: string; why: string }[];
}

/** Options for {@linkcode homeContents}. */
export interface HomeContentsOptions {
  /** Take the API token too. */
  withSecrets: boolean;
  /**
   * Absolute paths in the home to leave out, each with what starts with it and a dot: the
   * backups' folder, the archive being written (and its `.partial-…`).
   */
  leaveOut: string[];
}

/**
 * Lists what a backup of `home` holds.
 *
 * @example
 * ```ts
 * const { files } = await homeContents(home, { withSecrets: false, leaveOut: [`${home}/backups`] });
 * ```
 */
export async function homeContents(
  home: string,
  options: HomeContentsOptions,
): Promise<HomeContents> {
  const found: HomeContents = { dirs: [], files: [], skipped: [] };
  const leaveOut = (path: string) =>
    options.leaveOut.some((out) => path === out || path.startsWith(`${out}.`));
  const walk = async (relative: string): Promise<void> => {
    const dir = relative ? join(home, relative) : home;
    const entries: Deno.DirEntry[] = [];
    for await (const entry of Deno.readDir(dir)) entries.push(entry);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (leftOut(path, entry.name, options.withSecrets)) continue;
      if (leaveOut(join(home, path))) continue;
      if (entry.isSymlink) {
        found.skipped.push({ path, why: "a symbolic link (not followed)" });
      } else if (entry.isDirectory) {
        found.dirs.push(path);
        await walk(path);
      } else if (entry.isFile) {
        found.files.push(path);
      } else {
        found.skipped.push({ path, why: "not a regular file" });
      }
    }
  };
  await walk("");
  return found;
}

/** Whether `path` (named `name`) is one hob leaves out of every backup. */
function leftOut(path: string, name: string, withSecrets: boolean): boolean {
  if (Object.hasOwn(TOP_LEFT_OUT, path)) return true;
  if (path === TOKEN_FILE && !withSecrets) return true;
  return PASSING.some((pattern) => pattern.test(name));
}
