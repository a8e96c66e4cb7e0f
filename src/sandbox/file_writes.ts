/**
 * Writing files from a tool's Worker: atomically (a temporary file, then a
 * rename), and inside the roots verifiably, through handles the path checks
 * (paths.ts) opened. The sandbox's runner gives tools `context.writeFile`
 * with it.
 */

import { basename, dirname, join } from "node:path";
import {
  openInRoots,
  PathChangedError,
  PathError,
  removeIfSame,
  resolveInRoots,
  verifyPathIs,
} from "./paths.ts";

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
