/**
 * Small helpers the file tools share inside their Workers: showing paths
 * relative to the workspace, spotting binary files, sizes, walking a tree,
 * reading from a verified handle. Writing is the sandbox's
 * (src/sandbox/file_writes.ts), which `context.writeFile` uses.
 */

import { relative } from "node:path";
import { joinCapped } from "../tools/bounded_text.ts";
import { isInside, PathChangedError } from "../sandbox/paths.ts";
import { compareText } from "../core/text_order.ts";

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

/** Reads one directory's entries for {@linkcode walk}; a tool passes its verified `readDirectory`. */
export type DirectoryReader = (dir: string) => Promise<Deno.DirEntry[]>;

/** Entries a walk visits at most, so a huge tree cannot stall a tool. */
const MAX_WALK_ENTRIES = 100_000;
/** Directories no search descends into. */
const SKIPPED_DIRS = new Set([".git", ".hg", ".svn"]);

/** Reads a directory by path, unverified: for trees no one else can change. */
const plainReader: DirectoryReader = (dir) => Array.fromAsync(Deno.readDir(dir));

/**
 * Walks a directory tree depth-first, never following symbolic links (so a
 * link cannot lead a search out of the allowed directories). Each directory
 * is read with `read` — in a tool, `context.readDirectory`, which fails when a
 * directory is swapped while it is read; that error ends the walk, while a
 * directory that merely cannot be read is skipped.
 */
export async function* walk(
  root: string,
  read: DirectoryReader = plainReader,
  maxEntries = MAX_WALK_ENTRIES,
): AsyncGenerator<WalkEntry> {
  const stack: [string, string][] = [[root, ""]];
  let seen = 0;
  while (stack.length > 0) {
    const [dir, prefix] = stack.pop()!;
    let entries: Deno.DirEntry[];
    try {
      entries = await read(dir);
    } catch (error) {
      if (error instanceof PathChangedError) throw error;
      continue;
    }
    entries.sort((a, b) => compareText(b.name, a.name));
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

/** Bytes read from a handle at a time. */
const READ_CHUNK_BYTES = 65_536;

/**
 * Reads a file through its handle, to the end or to `limit` bytes — never
 * by path, so it reads exactly what was opened (and verified).
 */
export async function readAll(
  file: Deno.FsFile,
  limit = Number.POSITIVE_INFINITY,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(READ_CHUNK_BYTES);
  while (total < limit) {
    const count = await file.read(buffer);
    if (count === null) break;
    chunks.push(buffer.slice(0, count));
    total += count;
  }
  return joinCapped(chunks, limit);
}
