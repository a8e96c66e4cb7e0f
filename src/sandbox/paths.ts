/**
 * The one containment check every file path a tool takes goes through before
 * any file access. Deno's `--allow-read=DIR` checks the path string, not where
 * symlinks lead, so `DIR/link/secret` with `link -> /etc` passes Deno; this
 * check does not let it. Knows nothing of tools or permissions.
 *
 * A check and a later open are two walks of the same path, and a directory on
 * it can be swapped for a symlink in between. So tools do not open what they
 * checked by name: {@linkcode openInRoots} opens, then proves by identity
 * (device and inode, from the open handle) that what it holds is what the
 * checked path names now, every directory on it still the same real
 * directory; {@linkcode readDirInRoots} does the same for a directory around
 * its read. Anything else fails closed.
 *
 * Why "proves" needs care: Deno has no openat, no walk that refuses symlinks
 * and no way to ask where a handle's file lives, so every check is another
 * walk of the path, and a walk through a swapped directory sees the outside
 * file. {@linkcode verifyPathIs} therefore samples the leaf and every
 * directory above it in several rounds at unpredictable moments: to slip an
 * outside file through, the swap must be the link at every leaf sample and
 * the directory at every sample above it. That makes a leak vanishingly
 * unlikely (at most 1 in 4^8 tries even for a swapper tuned to the odds,
 * measured 0 in hundreds of thousands), not impossible.
 */

import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Longest path accepted, in bytes (Linux PATH_MAX). */
const MAX_PATH_BYTES = 4096;
/** Longest single path component accepted, in bytes (NAME_MAX). */
const MAX_NAME_BYTES = 255;

/** A path a tool may not use; the message says why, in words the model can act on. */
export class PathError extends Error {
  override name = "PathError";
  readonly path: string;
  constructor(path: string, reason: string) {
    super(`Path '${path.length > 200 ? `${path.slice(0, 200)}…` : path}' ${reason}`);
    this.path = path;
  }
}

/**
 * A path that named one thing when checked and another when used: a directory
 * on it was swapped (for a symlink, say) while the tool was using it. Nothing
 * read through it is returned.
 */
export class PathChangedError extends PathError {
  override name = "PathChangedError";
  constructor(path: string, what = "changed while it was being used") {
    super(
      path,
      `${what} (something on the path was moved or swapped for a link); nothing was used`,
    );
  }
}

/** Options for {@linkcode resolveInRoots}. */
export interface ResolveOptions {
  /**
   * The path may name something that does not exist yet (a file to create);
   * its nearest existing ancestor must then be inside a root.
   * @default {false}
   */
  allowMissing?: boolean;
}

/**
 * Resolves `path` to a real, absolute path inside one of `roots`, or throws a
 * PathError. The rules, in order:
 *
 * 1. NUL bytes are rejected (they truncate paths in C APIs).
 * 2. Paths over 4096 bytes, or with a component over 255 bytes, are rejected.
 * 3. The path is normalised to Unicode NFC, so look-alike spellings are one path.
 * 4. `~` is not expanded: a path starting with `~` is rejected, never taken as home.
 * 5. A relative path is resolved against the first root (the workspace).
 * 6. After resolving `.` and `..`, the path must be inside a root: no `..` escapes,
 *    no absolute paths elsewhere.
 * 7. Every existing component from the root down is checked with lstat; a symlink
 *    anywhere — the leaf or a middle directory — must resolve inside a root.
 * 8. A missing path is allowed only with `allowMissing`, and then its nearest
 *    existing ancestor must be a real directory inside a root.
 *
 * The roots themselves are canonicalised with realpath first (a root may be a
 * symlink, such as macOS's /tmp).
 *
 * @example
 * ```ts
 * const file = await resolveInRoots("notes/todo.md", ["/home/me/.hob/workspace"]);
 * await Deno.readTextFile(file);
 * ```
 */
export async function resolveInRoots(
  path: string,
  roots: readonly string[],
  options: ResolveOptions = {},
): Promise<string> {
  if (roots.length === 0) throw new PathError(path, "cannot be used: no directories are allowed");
  if (typeof path !== "string" || path.length === 0) throw new PathError(String(path), "is empty");
  if (path.includes("\0")) throw new PathError(path.replaceAll("\0", "\\0"), "contains a NUL byte");
  const bytes = new TextEncoder().encode(path).length;
  if (bytes > MAX_PATH_BYTES) throw new PathError(path, `is longer than ${MAX_PATH_BYTES} bytes`);
  for (const part of path.split(/[\\/]/)) {
    if (new TextEncoder().encode(part).length > MAX_NAME_BYTES) {
      throw new PathError(path, `has a name longer than ${MAX_NAME_BYTES} bytes`);
    }
  }
  const normalised = path.normalize("NFC");
  if (normalised.startsWith("~")) {
    throw new PathError(
      path,
      "starts with '~', which is not expanded; use a path inside the workspace",
    );
  }

  const realRoots = await Promise.all(roots.map(canonicalRoot));
  const given = isAbsolute(normalised) ? resolve(normalised) : resolve(realRoots[0], normalised);
  // A root may be named through a symlink (/tmp on macOS): rebase onto its real path.
  let target = "";
  let root = "";
  for (let i = 0; i < roots.length && !root; i++) {
    for (const spelling of [realRoots[i], resolve(roots[i])]) {
      if (isInside(given, spelling)) {
        root = realRoots[i];
        target = join(root, relative(spelling, given));
        break;
      }
    }
  }
  if (!root) {
    throw new PathError(path, `is outside the allowed directories (${realRoots.join(", ")})`);
  }

  // Walk from the root down, following each symlink only if it stays inside a root.
  const parts = relative(root, target).split(sep).filter((p) => p.length > 0);
  let current = root;
  for (let i = 0; i < parts.length; i++) {
    const next = join(current, parts[i]);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(next);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) {
        throw new PathError(path, `cannot be checked: ${(error as Error).message}`);
      }
      if (!options.allowMissing) throw new PathError(path, "does not exist");
      return join(current, ...parts.slice(i));
    }
    if (info.isSymlink) {
      let real: string;
      try {
        real = await Deno.realPath(next);
      } catch {
        throw new PathError(
          path,
          "goes through a symbolic link that points nowhere or out of reach",
        );
      }
      if (!realRoots.some((r) => isInside(real, r))) {
        throw new PathError(
          path,
          "goes through a symbolic link that leads outside the allowed directories",
        );
      }
      current = real;
    } else {
      current = next;
    }
    if (i < parts.length - 1 && !(await isDirectory(path, current))) {
      throw new PathError(path, `goes through '${parts[i]}', which is not a directory`);
    }
  }
  return current;
}

/** Whether `at`, met while checking `path`, is a directory; it may vanish meanwhile. */
async function isDirectory(path: string, at: string): Promise<boolean> {
  try {
    return (await Deno.stat(at)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new PathError(path, "does not exist");
    throw new PathError(path, `cannot be checked: ${(error as Error).message}`);
  }
}

/** Whether `path` is `root` or below it (both absolute and normalised). */
export function isInside(path: string, root: string): boolean {
  if (path === root) return true;
  const withSep = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(withSep);
}

async function canonicalRoot(root: string): Promise<string> {
  try {
    return await Deno.realPath(root);
  } catch {
    return resolve(root);
  }
}

function canonicalRootSync(root: string): string {
  try {
    return Deno.realPathSync(root);
  } catch {
    return resolve(root);
  }
}

/** How {@linkcode openInRoots} opens a file; reading only by default. */
export interface OpenInRootsOptions {
  /** @default {true} unless `write` or `append` is set */
  read?: boolean;
  write?: boolean;
  append?: boolean;
  /** Create the file when it is missing (its directory must exist). */
  create?: boolean;
  /** Create the file, failing if it exists (as for a temporary file). */
  createNew?: boolean;
  /**
   * `path` is already a real absolute path, met in a verified listing: its
   * symlinks need no resolving (the identity proof after the open still runs,
   * and refuses a symlink anywhere on it). Saves a walk per file in a search.
   */
  real?: boolean;
}

/** A file opened inside the roots and proven to be the file the containment check found. */
export interface OpenedInRoots extends Disposable {
  /** The real path the check resolved. */
  path: string;
  /** The handle; every read and write goes through it, never the path again. */
  file: Deno.FsFile;
  /** The handle's own stat: size, kind and identity of what was opened. */
  info: Deno.FileInfo;
  /** Whether this open created the file. */
  created: boolean;
  /** Closes the handle (again is harmless). */
  close(): void;
}

/**
 * Opens `path` inside `roots` so that what is opened is what was checked:
 *
 * 1. {@linkcode resolveInRoots} finds the real path (only regular files and
 *    directories are opened: a FIFO would block, a device never ends);
 * 2. that real path is opened and the handle stat'ed (device and inode of what it holds);
 * 3. {@linkcode verifyPathIs} proves the real path still names that very file,
 *    through the same real directories, in several rounds;
 * 4. on any mismatch the handle is closed, a file this call created is removed
 *    (as far as it can still be found), and a {@linkcode PathChangedError} is thrown.
 *
 * A directory swapped for a symlink between step 1 and 2 makes step 2 open a
 * file outside; step 3 then finds the link, or a different inode, and nothing
 * outside is returned. What this cannot see: a file outside that is also
 * hard-linked inside the roots (it *is* inside), and a swap that happens to be
 * in the right state at every sample of step 3 (see the module notes).
 *
 * @example
 * ```ts
 * using opened = await openInRoots("notes/todo.md", [workspace]);
 * const bytes = await readAll(opened.file);
 * ```
 */
export async function openInRoots(
  path: string,
  roots: readonly string[],
  options: OpenInRootsOptions = {},
): Promise<OpenedInRoots> {
  const creating = Boolean(options.create || options.createNew);
  const resolved = options.real
    ? assertRealInRoots(path, roots)
    : await resolveInRoots(path, roots, { allowMissing: creating });
  const before = await Deno.stat(resolved).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new PathError(path, `cannot be opened: ${(error as Error).message}`);
    }
    if (creating) return null;
    throw new PathChangedError(path, "vanished while it was being opened");
  });
  if (before && !before.isFile && !before.isDirectory) {
    throw new PathError(path, "is not a regular file or directory");
  }
  if (before && options.createNew) throw new PathError(path, "already exists");
  const { file, created } = await openOnce(path, resolved, options, before === null);
  let info: Deno.FileInfo | undefined;
  try {
    info = await statOpened(path, file);
    if (!info.isFile && !info.isDirectory) {
      throw new PathError(path, "is not a regular file or directory");
    }
    verifyPathIs(resolved, info, roots, path);
  } catch (error) {
    closeQuietly(file);
    if (created && info) await removeIfSame(resolved, info);
    throw error;
  }
  return {
    path: resolved,
    file,
    info,
    created,
    close: () => closeQuietly(file),
    [Symbol.dispose]: () => closeQuietly(file),
  };
}

/** A directory's entries, read between two identity checks of the directory. */
export interface DirectoryListing {
  /** The directory's real path. */
  path: string;
  entries: ListedEntry[];
}

/** An entry of a {@linkcode DirectoryListing}. */
export interface ListedEntry extends Deno.DirEntry {
  /** The entry's own lstat (symlinks not followed), with `details`; null if it vanished. */
  info?: Deno.FileInfo | null;
  /** Where a symlink points, with `details`. */
  target?: string;
}

/**
 * Lists the directory at `path` inside `roots` (`real`: as for
 * {@linkcode OpenInRootsOptions.real}): checks it and takes its identity,
 * reads it (and, with `details`, lstats every entry), then proves with
 * {@linkcode verifyPathIs} that its real path still names the same directory
 * through the same directories, or throws a {@linkcode PathChangedError}.
 *
 * Deno reads directories by path, not by handle, so this catches any swap
 * still in place after the read, but not one swapped in and back again while
 * the read ran (that can show the names and sizes, never the contents, of an
 * outside directory).
 */
export async function readDirInRoots(
  path: string,
  roots: readonly string[],
  options: { details?: boolean; real?: boolean } = {},
): Promise<DirectoryListing> {
  const resolved = options.real
    ? assertRealInRoots(path, roots)
    : await resolveInRoots(path, roots);
  const info = lstatOrChanged(resolved, path);
  if (!info.isDirectory) throw new PathError(path, "is not a directory");
  verifyPathIs(resolved, info, roots, path);
  const entries: ListedEntry[] = [];
  for await (const entry of Deno.readDir(resolved)) {
    if (!options.details) {
      entries.push(entry);
      continue;
    }
    const at = join(resolved, entry.name);
    entries.push({
      ...entry,
      info: await Deno.lstat(at).catch(() => null),
      target: entry.isSymlink ? await Deno.readLink(at).catch(() => "?") : undefined,
    });
  }
  verifyPathIs(resolved, info, roots, path);
  return { path: resolved, entries };
}

/**
 * Rounds {@linkcode verifyPathIs} samples the path in. Against a process
 * renaming in a tight loop (the race tests), one round let about 2% of the
 * opens that went through the link pass; each further round, at unpredictable
 * moments, multiplies the odds by that again, and by at most 1/4 for any swapper.
 */
const VERIFY_ROUNDS = 8;
/**
 * Longest random pause before each sample, in milliseconds: longer than a
 * whole cycle of a rename loop, so samples fall at unpredictable phases of it
 * instead of locking onto its rhythm (regular samples let leaks through
 * however many rounds were taken).
 */
const MAX_SAMPLE_GAP_MS = 0.04;

/**
 * Proves that the real path `real` names the file whose stat is `info`, and
 * that every directory above it, up to and including its root, is a real
 * directory (no symlink), the same one in every round; throws a
 * {@linkcode PathChangedError} (naming `shown`) if not.
 *
 * Each round lstats the leaf and then every ancestor, synchronously (the
 * Worker's own thread may block), each after a short random pause. A walk
 * through a directory swapped for a link sees the outside file at the leaf
 * but a link (or another inode, or nothing) at the ancestor, so to pass, a
 * swap must be the link at every leaf sample and the directory at every
 * ancestor sample: at random moments, at best an even split, 1/4 a round.
 * A slow swap never passes. Directories above the roots are not checked: a
 * tool may not even stat them.
 */
export function verifyPathIs(
  real: string,
  info: Deno.FileInfo,
  roots: readonly string[],
  shown = real,
): void {
  const realRoots = roots.map(canonicalRootSync);
  if (!realRoots.some((root) => isInside(real, root))) throw new PathChangedError(shown);
  const ancestors = ancestorsOf(real).filter((dir) => realRoots.some((r) => isInside(dir, r)));
  let first: Deno.FileInfo[] | undefined;
  for (let round = 0; round < VERIFY_ROUNDS; round++) {
    pauseBriefly();
    if (!sameFile(lstatOrChanged(real, shown), info)) throw new PathChangedError(shown);
    pauseBriefly();
    const now = ancestors.map((dir) => lstatOrChanged(dir, shown));
    for (let i = 0; i < now.length; i++) {
      const same = first ? sameFile(first[i], now[i]) : true;
      if (now[i].isSymlink || !now[i].isDirectory || !same) throw new PathChangedError(shown);
    }
    first ??= now;
  }
  pauseBriefly();
  if (!sameFile(lstatOrChanged(real, shown), info)) throw new PathChangedError(shown);
}

/** Spins for a random moment up to {@linkcode MAX_SAMPLE_GAP_MS} (a timer is far coarser). */
function pauseBriefly(): void {
  const until = performance.now() + Math.random() * MAX_SAMPLE_GAP_MS;
  while (performance.now() < until) {
    // Busy-wait: microseconds, on the Worker's own thread.
  }
}

/** Whether two stats are of the same file: same device and inode. Unknown inodes are never the same. */
export function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.ino !== null && b.ino !== null && a.ino === b.ino && a.dev === b.dev;
}

/** Tries {@linkcode removeIfSame} makes to find the file it created: quickly, then a millisecond apart. */
const QUICK_REMOVE_ATTEMPTS = 16;
const SLOW_REMOVE_ATTEMPTS = 16;

/**
 * Removes the file at `path` if it is the file whose stat is `info`: undoing
 * a file this call created where it should not have. Best effort — the path
 * may lead elsewhere by now (a swap flipped back), so it looks again for a
 * few milliseconds, and otherwise leaves the file alone rather than remove
 * something else.
 */
export async function removeIfSame(path: string, info: Deno.FileInfo): Promise<void> {
  for (let attempt = 0; attempt < QUICK_REMOVE_ATTEMPTS + SLOW_REMOVE_ATTEMPTS; attempt++) {
    try {
      if (sameFile(await Deno.lstat(path), info)) {
        await Deno.remove(path);
        return;
      }
    } catch {
      // Not there now; it may be again in a moment.
    }
    if (attempt < QUICK_REMOVE_ATTEMPTS) pauseBriefly();
    else await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * Returns `path` if it is absolute, normalised (no `.` or `..`), free of NUL
 * and inside a root, else throws: the cheap part of the check for a path
 * already real; {@linkcode verifyPathIs} proves there are no symlinks on it.
 */
function assertRealInRoots(path: string, roots: readonly string[]): string {
  if (!isAbsolute(path) || resolve(path) !== path || path.includes("\0")) {
    throw new PathError(path, "is not a real absolute path");
  }
  if (!roots.map(canonicalRootSync).some((root) => isInside(path, root))) {
    throw new PathError(path, "is outside the allowed directories");
  }
  return path;
}

/** Every directory above an absolute path, deepest first, without the filesystem root. */
function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(path); dirname(dir) !== dir; dir = dirname(dir)) out.push(dir);
  return out;
}

/** lstat, where a path that was there a moment ago and is not now is a change. */
function lstatOrChanged(path: string, shown: string): Deno.FileInfo {
  try {
    return Deno.lstatSync(path);
  } catch {
    throw new PathChangedError(shown);
  }
}

/** Opens `resolved`; when creating a missing file, exclusively, so `created` is known for sure. */
async function openOnce(
  path: string,
  resolved: string,
  options: OpenInRootsOptions,
  missing: boolean,
): Promise<{ file: Deno.FsFile; created: boolean }> {
  const read = options.read ?? !(options.write || options.append);
  const base = { read, write: options.write, append: options.append };
  try {
    if (options.createNew || (options.create && missing)) {
      try {
        return { file: await Deno.open(resolved, { ...base, createNew: true }), created: true };
      } catch (error) {
        // Someone else created it first: open theirs, like create would have.
        if (options.createNew || !(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
    }
    return { file: await Deno.open(resolved, base), created: false };
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new PathChangedError(path, "vanished while it was being opened");
    }
    throw new PathError(path, `cannot be opened: ${(error as Error).message}`);
  }
}

/**
 * The handle's stat. Deno refuses it (NotCapable) when the path it resolved
 * while opening lies outside the tool's read permission: the walk went
 * through a link that was not there when the path was checked.
 */
async function statOpened(path: string, file: Deno.FsFile): Promise<Deno.FileInfo> {
  try {
    return await file.stat();
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) throw new PathChangedError(path);
    throw new PathError(path, `cannot be opened: ${(error as Error).message}`);
  }
}

function closeQuietly(file: Deno.FsFile): void {
  try {
    file.close();
  } catch {
    // Already closed.
  }
}
