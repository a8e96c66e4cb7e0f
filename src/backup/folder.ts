/**
 * The backups' folder: the names hob gives the archives it writes there
 * (`hob-backup-2026-11-29T13-40-05Z.tar.gz`, in UTC, so names sort as times
 * do and mean the same anywhere), and keeping only the newest few. Files of
 * other names are never touched.
 */

import { join } from "node:path";

/** What the name of a backup hob wrote looks like; `-2`… when two fall in one second. */
const BACKUP_NAME = /^hob-backup-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ(-\d+)?\.tar\.gz$/;

/**
 * The archive's name for a backup taken at `at`; `attempt` (from 2) tells
 * apart two taken in the same second.
 *
 * @example
 * ```ts
 * backupName(new Date("2026-11-29T13:40:05.120Z")); // "hob-backup-2026-11-29T13-40-05Z.tar.gz"
 * ```
 */
export function backupName(at: Date, attempt = 1): string {
  const stamp = at.toISOString().slice(0, 19).replaceAll(":", "-");
  return `hob-backup-${stamp}Z${attempt > 1 ? `-${attempt}` : ""}.tar.gz`;
}

/**
 * The backups hob wrote in `dir`, oldest first; none when it does not exist.
 *
 * @example
 * ```ts
 * (await listBackups(`${home}/backups`)).at(-1); // the newest
 * ```
 */
export async function listBackups(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile && BACKUP_NAME.test(entry.name)) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return names.sort(byTime);
}

/**
 * Deletes the oldest backups hob wrote in `dir` until `keep` remain; returns
 * the names deleted.
 *
 * @example
 * ```ts
 * await pruneBackups(`${home}/backups`, 7); // ["hob-backup-2026-11-01T03-00-00Z.tar.gz"]
 * ```
 */
export async function pruneBackups(dir: string, keep: number): Promise<string[]> {
  const names = await listBackups(dir);
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const name of old) {
    await Deno.remove(join(dir, name)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
  return old;
}

/** Orders names by the time in them, then by the `-2`… of the same second. */
function byTime(a: string, b: string): number {
  const key = (name: string) => {
    const match = /^(.*Z)(?:-(\d+))?\.tar\.gz$/.exec(name)!;
    return [match[1], Number(match[2] ?? 1)] as const;
  };
  const [ta, na] = key(a);
  const [tb, nb] = key(b);
  return ta < tb ? -1 : ta > tb ? 1 : na - nb;
}
