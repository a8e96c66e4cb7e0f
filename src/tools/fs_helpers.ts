/**
 * Small helpers the file tools share inside their Workers: showing paths
 * relative to the workspace, spotting binary files, writing atomically.
 */

import { dirname, relative } from "node:path";
import { isInside } from "./sandbox/paths.ts";

/** Bytes read to decide whether a file is text. */
const SNIFF_BYTES = 8_192;

/** A path as the model should see it: relative to the workspace when inside it. */
export function displayPath(path: string, workspace: string): string {
  return isInside(path, workspace) ? relative(workspace, path) || "." : path;
}

/** Whether the first bytes look binary (a NUL byte, as git and grep decide). */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, SNIFF_BYTES).includes(0);
}

/**
 * Writes a file atomically: a temporary file beside it, synced to disk, then
 * a rename, so a crash (or a power cut) leaves the old content or the new,
 * never half of one.
 */
export async function writeAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const temp = `${dirname(path)}/.${crypto.randomUUID()}.tmp`;
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  try {
    const file = await Deno.open(temp, { write: true, createNew: true });
    try {
      for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
      await file.syncData();
    } finally {
      file.close();
    }
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/** A human size: 512 B, 1.2 KB, 3.4 MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A file or directory met by {@linkcode walk}. */
export interface WalkEntry {
  path: string;
  /** Relative to the directory walked, with `/` separators. */
  relative: string;
  isDirectory: boolean;
}

/** Entries a walk visits at most, so a huge tree cannot stall a tool. */
const MAX_WALK_ENTRIES = 100_000;
/** Directories no search descends into. */
const SKIPPED_DIRS = new Set([".git", ".hg", ".svn"]);

/**
 * Walks a directory tree depth-first, never following symbolic links (so a
 * link cannot lead a search out of the allowed directories).
 */
export async function* walk(
  root: string,
  maxEntries = MAX_WALK_ENTRIES,
): AsyncGenerator<WalkEntry> {
  const stack: [string, string][] = [[root, ""]];
  let seen = 0;
  while (stack.length > 0) {
    const [dir, prefix] = stack.pop()!;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch {
      continue;
    }
    entries.sort((a, b) => b.name.localeCompare(a.name));
    for (const entry of entries) {
      if (entry.isSymlink) continue;
      if (++seen > maxEntries) return;
      const path = `${dir}/${entry.name}`;
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      yield { path, relative, isDirectory: entry.isDirectory };
      if (entry.isDirectory && !SKIPPED_DIRS.has(entry.name)) stack.push([path, relative]);
    }
  }
}
