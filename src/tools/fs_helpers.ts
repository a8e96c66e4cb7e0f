/**
 * Small helpers the file tools share inside their Workers: showing paths
 * relative to the workspace, spotting binary files, reading from a verified
 * handle, writing atomically (and, inside the roots, verifiably).
 */

import { basename, dirname, join, relative } from "node:path";
import { joinCapped } from "./bounded_text.ts";
import {
  isInside,
  openInRoots,
  PathChangedError,
  PathError,
  removeIfSame,
  resolveInRoots,
  verifyPathIs,
} from "./sandbox/paths.ts";
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

/**
 * Writes a file atomically: a temporary file beside it, synced to disk, then
 * a rename, so a crash (or a power cut) leaves the old content or the new,
 * never half of one. By path, unverified: tools use {@linkcode writeInRoots}.
 */
export async function writeAtomic(path: string, content: string | Uint8Array): Promise<void> {
  const temp = `${dirname(path)}/.${crypto.randomUUID()}.tmp`;
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  try {
    const file = await Deno.open(temp, { write: true, createNew: true });
    try {
      await writeAll(file, bytes);
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

/** Writes every byte through a handle. */
async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
}

/** How {@linkcode writeInRoots} writes. */
export interface WriteInRootsOptions {
  /** Add to the end of the file (created if missing) instead of replacing it. */
  append?: boolean;
}

/**
 * Writes `content` to `path` inside `roots`, creating missing parent
 * directories, and returns the real path written. Replacing (or appending to
 * a file that does not exist yet) goes through a temporary file and a rename
 * ({@linkcode writeAtomicInRoots}); appending, through a handle verified by
 * {@linkcode openInRoots}. Content is written only through verified handles.
 *
 * Missing parents are made with a recursive mkdir and only then checked: a
 * swap during that mkdir can leave empty directories outside (never content).
 * Two appends racing to create the same file may keep only the later one.
 */
export async function writeInRoots(
  path: string,
  content: string | Uint8Array,
  roots: readonly string[],
  options: WriteInRootsOptions = {},
): Promise<string> {
  const file = await resolveCreatable(path, roots);
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  // A missing file is made whole through a temporary file, never created under its own
  // name: a create through a swapped directory would leave that name outside, empty.
  const exists = await Deno.lstat(file).then(() => true, () => false);
  if (!options.append || !exists) return await writeAtomicInRoots(file, bytes, roots);
  using opened = await openInRoots(file, roots, { write: true, append: true });
  if (!opened.info.isFile) throw new PathError(path, "is not a regular file");
  await writeAll(opened.file, bytes);
  return opened.path;
}

/** Resolves a file to write, after making its missing parents, re-checked once they exist. */
async function resolveCreatable(path: string, roots: readonly string[]): Promise<string> {
  const file = await resolveInRoots(path, roots, { allowMissing: true });
  await Deno.mkdir(dirname(file), { recursive: true });
  return await resolveInRoots(file, roots, { allowMissing: true });
}

/**
 * Replaces the file at `path` (a real path inside `roots`) atomically and
 * verifiably: the temporary file is created through {@linkcode openInRoots}
 * (so it is proven to sit in the checked directory), the directory and the
 * temporary file are proven again ({@linkcode verifyPathIs}) just before the
 * rename, and after it the file at `path` must be the one written. On any
 * mismatch what was written is removed as far as it can still be found by its
 * identity, and a {@linkcode PathChangedError} is thrown. Returns the real path.
 *
 * What is left: rename(2) walks both paths again inside the kernel, so a
 * directory swapped away and back between the last check and the rename can
 * still move the new file out; the check after the rename then reports the
 * failure, but the file can be removed only while the swap lasts.
 */
export async function writeAtomicInRoots(
  path: string,
  content: Uint8Array,
  roots: readonly string[],
): Promise<string> {
  const dir = await resolveInRoots(dirname(path), roots);
  const dirInfo = await Deno.lstat(dir).catch(() => {
    throw new PathChangedError(dirname(path), "vanished while it was being checked");
  });
  if (!dirInfo.isDirectory) throw new PathError(dirname(path), "is not a directory");
  verifyPathIs(dir, dirInfo, roots, dirname(path));
  const target = join(dir, basename(path));
  const temp = join(dir, `.${crypto.randomUUID()}.tmp`);
  const opened = await openInRoots(temp, roots, { write: true, createNew: true });
  try {
    try {
      await writeAll(opened.file, content);
      await opened.file.syncData();
    } finally {
      opened.close();
    }
    verifyPathIs(dir, dirInfo, roots, dirname(path));
    verifyPathIs(temp, opened.info, roots, path);
    await Deno.rename(temp, target);
  } catch (error) {
    await removeIfSame(temp, opened.info);
    // The temporary file or its directory went away under us: a swap, most likely.
    if (error instanceof Deno.errors.NotFound) {
      throw new PathChangedError(path, "changed while it was being written");
    }
    throw error;
  }
  try {
    verifyPathIs(target, opened.info, roots, path);
  } catch (error) {
    await removeIfSame(target, opened.info);
    throw error instanceof PathChangedError
      ? new PathChangedError(path, "changed while it was being written")
      : error;
  }
  return target;
}
